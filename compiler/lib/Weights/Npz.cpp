//===- Npz.cpp - numpy .npz archives --------------------------------------===//
//
// A minimal zip reader and writer (PKWARE APPNOTE 6.3): the central
// directory is the source of truth for names, sizes and offsets; the local
// headers are only used to find where each entry's data starts.
//
//===----------------------------------------------------------------------===//

#include "rnn/Weights/Npz.h"
#include "rnn/Spec/ModelShapes.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/Endian.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#define ZLIB_CONST
#include <zlib.h>

#include <algorithm>
#include <limits>

using namespace rnnc::weights;
using llvm::StringRef;

namespace {
constexpr uint32_t kLocalSig = 0x04034b50;
constexpr uint32_t kCentralSig = 0x02014b50;
constexpr uint32_t kEndSig = 0x06054b50;
constexpr uint32_t kZip64EndSig = 0x06064b50;
constexpr uint32_t kZip64LocatorSig = 0x07064b50;
constexpr uint64_t kEndSize = 22, kZip64EndSize = 56, kZip64LocatorSize = 20;
constexpr uint64_t kCentralSize = 46, kLocalSize = 30;
/// Deflate cannot expand data by more than this factor (RFC 1951: a
/// 258-byte match costs at least 2 bits); a larger claim is corrupt.
constexpr uint64_t kMaxDeflateRatio = 1032;

/// One central directory record.
struct Entry {
  std::string name;
  uint16_t flags = 0, method = 0;
  uint32_t crc = 0;
  uint64_t compressedSize = 0, size = 0, localOffset = 0;
};

/// True if [offset, offset + length) lies within a buffer of `size` bytes.
bool fits(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

uint16_t rd16(StringRef d, uint64_t at) {
  return llvm::support::endian::read16le(d.data() + at);
}
uint32_t rd32(StringRef d, uint64_t at) {
  return llvm::support::endian::read32le(d.data() + at);
}
uint64_t rd64(StringRef d, uint64_t at) {
  return llvm::support::endian::read64le(d.data() + at);
}

/// Reads an archive; every method checks bounds before reading.
class ZipReader {
public:
  ZipReader(StringRef data, StringRef fileName)
      : data(data), fileName(fileName) {}

  /// Every entry's header first (and the limit), then, unless
  /// `headersOnly`, the data of each.
  llvm::Error read(bool headersOnly, uint64_t maxBytes);

  std::vector<ArrayInfo> infos;
  std::vector<Array> arrays;

private:
  llvm::Error fail(const llvm::Twine &msg) const {
    return llvm::createStringError(fileName + ": " + msg);
  }
  llvm::Error readEnd(uint64_t &count, uint64_t &dirOffset,
                      uint64_t &dirSize) const;
  llvm::Error readCentral(uint64_t &at, uint64_t dirEnd, Entry &entry) const;
  llvm::Expected<StringRef> entryData(const Entry &entry) const;
  /// One archive entry and what its .npy header declares.
  struct Member {
    Entry entry;
    StringRef stored;
    NpyInfo npy;
  };
  llvm::Error readHeader(Member &member, StringRef key) const;
  llvm::Error readData(const Member &member, Array &array) const;

  StringRef data;
  StringRef fileName;
  std::vector<Member> members;
};

/// Inflates a raw deflate stream piece by piece into the caller's buffers,
/// never producing more than asked for.
class Inflater {
public:
  explicit Inflater(StringRef compressed) : inLeft(compressed.size()) {
    initialized = ok = inflateInit2(&zs, -MAX_WBITS) == Z_OK;
    zs.next_in = compressed.bytes_begin();
  }
  ~Inflater() {
    if (initialized)
      inflateEnd(&zs);
  }
  Inflater(const Inflater &) = delete;
  Inflater &operator=(const Inflater &) = delete;

  /// Fills `out[0, n)` with the next n inflated bytes; false if the stream
  /// is corrupt or ends first.
  bool read(uint8_t *out, uint64_t n) {
    if (!ok)
      return false;
    zs.next_out = out;
    uint64_t outLeft = n;
    while (outLeft) {
      if (ended)
        return ok = false;
      uInt inChunk = uInt(std::min(inLeft, kChunk));
      uInt outChunk = uInt(std::min(outLeft, kChunk));
      zs.avail_in = inChunk;
      zs.avail_out = outChunk;
      int rc = inflate(&zs, Z_NO_FLUSH);
      inLeft -= inChunk - zs.avail_in;
      outLeft -= outChunk - zs.avail_out;
      if (rc == Z_STREAM_END)
        ended = true;
      else if (rc != Z_OK)
        return ok = false; // corrupt, or out of input (Z_BUF_ERROR)
    }
    return true;
  }

  /// True if the stream ends here: no byte beyond those read.
  bool atEnd() {
    if (!ok || ended)
      return ok;
    uint8_t extra;
    for (;;) {
      uInt inChunk = uInt(std::min(inLeft, kChunk));
      zs.next_out = &extra;
      zs.avail_out = 1;
      zs.avail_in = inChunk;
      int rc = inflate(&zs, Z_NO_FLUSH);
      inLeft -= inChunk - zs.avail_in;
      if (zs.avail_out == 0)
        return false; // a byte past the declared size
      if (rc == Z_STREAM_END)
        return ended = true;
      if (rc != Z_OK)
        return ok = false;
    }
  }

private:
  static constexpr uint64_t kChunk = std::numeric_limits<uInt>::max();
  z_stream zs{};
  uint64_t inLeft;
  bool initialized = false, ok = false, ended = false;
};

/// The CRC-32 of `bytes`, continuing `crc`.
uint32_t updateCrc(uint32_t crc, const uint8_t *bytes, uint64_t size) {
  for (uint64_t done = 0; done < size;) {
    uInt n = uInt(std::min<uint64_t>(size - done,
                                     std::numeric_limits<uInt>::max()));
    crc = uint32_t(crc32(crc, bytes + done, n));
    done += n;
  }
  return crc;
}
} // namespace

/// Finds the end of central directory record (and its ZIP64 form, if any).
llvm::Error ZipReader::readEnd(uint64_t &count, uint64_t &dirOffset,
                               uint64_t &dirSize) const {
  if (data.size() < kEndSize)
    return fail("not a zip archive: " + llvm::Twine(data.size()) +
                " bytes, too short");
  // The record is the last thing in the file, followed by a comment of up
  // to 65535 bytes whose length it gives.
  uint64_t end = data.size() - kEndSize;
  uint64_t lowest = end > 0xffff ? end - 0xffff : 0;
  uint64_t at = end + 1;
  for (uint64_t pos = end + 1; pos-- > lowest;) {
    if (rd32(data, pos) == kEndSig &&
        pos + kEndSize + rd16(data, pos + 20) == data.size()) {
      at = pos;
      break;
    }
  }
  if (at > end)
    return fail("not a zip archive or truncated: no end of central directory "
                "record");
  if (rd16(data, at + 4) != 0 || rd16(data, at + 6) != 0)
    return fail("multi-disk zip archives are not supported");
  count = rd16(data, at + 10);
  dirSize = rd32(data, at + 12);
  dirOffset = rd32(data, at + 16);

  bool saturated =
      count == 0xffff || dirSize == 0xffffffff || dirOffset == 0xffffffff;
  if (at < kZip64LocatorSize ||
      rd32(data, at - kZip64LocatorSize) != kZip64LocatorSig) {
    if (saturated)
      return fail("missing zip64 end of central directory locator");
    return llvm::Error::success();
  }
  uint64_t zip64At = rd64(data, at - kZip64LocatorSize + 8);
  if (!fits(zip64At, kZip64EndSize, data.size()) ||
      rd32(data, zip64At) != kZip64EndSig)
    return fail("corrupt zip64 end of central directory record");
  if (rd32(data, zip64At + 16) != 0 || rd32(data, zip64At + 20) != 0)
    return fail("multi-disk zip archives are not supported");
  count = rd64(data, zip64At + 32);
  dirSize = rd64(data, zip64At + 40);
  dirOffset = rd64(data, zip64At + 48);
  return llvm::Error::success();
}

/// Reads the central directory record at `at` (advancing it).
llvm::Error ZipReader::readCentral(uint64_t &at, uint64_t dirEnd,
                                   Entry &entry) const {
  if (!fits(at, kCentralSize, dirEnd) || rd32(data, at) != kCentralSig)
    return fail("corrupt central directory at offset " + llvm::Twine(at));
  entry.flags = rd16(data, at + 8);
  entry.method = rd16(data, at + 10);
  entry.crc = rd32(data, at + 16);
  entry.compressedSize = rd32(data, at + 20);
  entry.size = rd32(data, at + 24);
  uint64_t nameLen = rd16(data, at + 28), extraLen = rd16(data, at + 30),
           commentLen = rd16(data, at + 32);
  entry.localOffset = rd32(data, at + 42);
  uint64_t nameAt = at + kCentralSize;
  if (!fits(nameAt, nameLen + extraLen + commentLen, dirEnd))
    return fail("corrupt central directory at offset " + llvm::Twine(at));
  entry.name = data.substr(nameAt, nameLen).str();
  StringRef extra = data.substr(nameAt + nameLen, extraLen);
  at = nameAt + nameLen + extraLen + commentLen;

  // The ZIP64 extra field (id 1) holds, in this order, the 8-byte values of
  // whichever of size, compressed size and offset are saturated.
  uint64_t *wide[] = {&entry.size, &entry.compressedSize, &entry.localOffset};
  bool needed =
      llvm::any_of(wide, [](uint64_t *v) { return *v == 0xffffffff; });
  while (extra.size() >= 4) {
    uint16_t id = rd16(extra, 0), len = rd16(extra, 2);
    if (len > extra.size() - 4)
      return fail("entry '" + entry.name + "': corrupt extra field");
    if (id == 1) {
      StringRef field = extra.substr(4, len);
      uint64_t pos = 0;
      for (uint64_t *v : wide) {
        if (*v != 0xffffffff)
          continue;
        if (!fits(pos, 8, field.size()))
          return fail("entry '" + entry.name + "': truncated zip64 field");
        *v = rd64(field, pos);
        pos += 8;
      }
      needed = false;
    }
    extra = extra.substr(4 + len);
  }
  if (needed)
    return fail("entry '" + entry.name + "': missing zip64 extra field");
  return llvm::Error::success();
}

/// The compressed bytes of `entry`, located through its local header.
llvm::Expected<StringRef> ZipReader::entryData(const Entry &entry) const {
  uint64_t at = entry.localOffset;
  if (!fits(at, kLocalSize, data.size()) || rd32(data, at) != kLocalSig)
    return fail("entry '" + entry.name + "': corrupt local header");
  uint64_t start = at + kLocalSize + rd16(data, at + 26) + rd16(data, at + 28);
  if (!fits(start, entry.compressedSize, data.size()))
    return fail("entry '" + entry.name + "': truncated data (" +
                llvm::Twine(entry.compressedSize) + " bytes declared)");
  return data.substr(start, entry.compressedSize);
}

/// Reads the .npy header of `member` (inflating only the header) and checks
/// that the entry's size is what the header declares.
llvm::Error ZipReader::readHeader(Member &member, StringRef key) const {
  const Entry &entry = member.entry;
  std::string what = (fileName + ": entry '" + entry.name + "'").str();
  StringRef header;
  std::string inflated;
  if (entry.method == 0) {
    header = member.stored;
  } else {
    if (entry.size / kMaxDeflateRatio > member.stored.size())
      return fail("entry '" + entry.name + "': corrupt sizes (" +
                  llvm::Twine(entry.size) + " bytes from " +
                  llvm::Twine(member.stored.size()) + " compressed)");
    // The fixed start (magic, version, length), then the rest of the header.
    Inflater inflater(member.stored);
    inflated.resize(std::min<uint64_t>(entry.size, 12));
    if (!inflater.read(reinterpret_cast<uint8_t *>(inflated.data()),
                       inflated.size()))
      return fail("entry '" + entry.name + "': corrupt deflate data");
    llvm::Expected<uint64_t> size = npyHeaderSize(inflated, what);
    if (!size)
      return size.takeError();
    uint64_t have = inflated.size();
    inflated.resize(std::max(have, std::min<uint64_t>(*size, entry.size)));
    if (!inflater.read(reinterpret_cast<uint8_t *>(inflated.data()) + have,
                       inflated.size() - have))
      return fail("entry '" + entry.name + "': corrupt deflate data");
    header = inflated;
  }
  llvm::Expected<NpyInfo> npy = parseNpyHeader(header, what);
  if (!npy)
    return npy.takeError();
  member.npy = std::move(*npy);
  uint64_t declared = member.npy.dataOffset + member.npy.dataBytes;
  if (declared < member.npy.dataBytes || entry.size != declared)
    return fail("entry '" + entry.name + "' holds " + llvm::Twine(entry.size) +
                " bytes, but its .npy header declares " +
                llvm::Twine(member.npy.dataOffset) + " header and " +
                llvm::Twine(member.npy.dataBytes) + " data bytes (" +
                dtypeName(member.npy.dtype) +
                rnnc::spec::formatShape(member.npy.shape) + ")");
  return llvm::Error::success();
}

/// Reads (inflates) the data of `member` straight into `array.bytes`, which
/// gets exactly the declared size, and checks the CRC.
llvm::Error ZipReader::readData(const Member &member, Array &array) const {
  const Entry &entry = member.entry;
  const NpyInfo &npy = member.npy;
  array.bytes.resize(npy.dataBytes);
  uint32_t crc = 0;
  if (entry.method == 0) {
    StringRef payload = member.stored.substr(npy.dataOffset);
    std::copy(payload.bytes_begin(), payload.bytes_end(), array.bytes.begin());
    crc = updateCrc(0, member.stored.bytes_begin(), member.stored.size());
  } else {
    Inflater inflater(member.stored);
    std::vector<uint8_t> header(npy.dataOffset);
    if (!inflater.read(header.data(), header.size()) ||
        !inflater.read(array.bytes.data(), array.bytes.size()))
      return fail("entry '" + entry.name + "': corrupt deflate data");
    if (!inflater.atEnd())
      return fail("entry '" + entry.name + "': inflates to more than the " +
                  llvm::Twine(entry.size) + " bytes it declares");
    crc = updateCrc(updateCrc(0, header.data(), header.size()),
                    array.bytes.data(), array.bytes.size());
  }
  if (crc != entry.crc)
    return fail("entry '" + entry.name + "': crc mismatch (corrupt data)");
  if (npy.fortranOrder)
    toRowMajor(array);
  return llvm::Error::success();
}

llvm::Error ZipReader::read(bool headersOnly, uint64_t maxBytes) {
  uint64_t count = 0, dirOffset = 0, dirSize = 0;
  if (llvm::Error err = readEnd(count, dirOffset, dirSize))
    return err;
  if (!fits(dirOffset, dirSize, data.size()))
    return fail("truncated central directory");
  if (count > dirSize / kCentralSize)
    return fail("central directory of " + llvm::Twine(dirSize) +
                " bytes cannot hold " + llvm::Twine(count) + " entries");

  llvm::StringSet<> names;
  uint64_t at = dirOffset, dirEnd = dirOffset + dirSize;
  for (uint64_t i = 0; i < count; ++i) {
    Member member;
    Entry &entry = member.entry;
    if (llvm::Error err = readCentral(at, dirEnd, entry))
      return err;
    StringRef key = entry.name;
    if (!key.consume_back(".npy"))
      return fail("entry '" + entry.name + "' is not a .npy array");
    if (!names.insert(key).second)
      return fail("duplicate array '" + key + "'");
    if (entry.flags & 1)
      return fail("entry '" + entry.name + "' is encrypted");
    llvm::Expected<StringRef> stored = entryData(entry);
    if (!stored)
      return stored.takeError();
    member.stored = *stored;
    if (entry.method == 0) {
      if (entry.size != entry.compressedSize)
        return fail("entry '" + entry.name + "': stored entry sizes differ");
    } else if (entry.method != 8) {
      return fail("entry '" + entry.name +
                  "': unsupported compression method " +
                  llvm::Twine(entry.method) +
                  ", expected 0 (stored) or 8 "
                  "(deflate)");
    }
    if (llvm::Error err = readHeader(member, key))
      return err;
    infos.push_back(
        {key.str(), member.npy.dtype, member.npy.shape, member.npy.dataBytes});
    members.push_back(std::move(member));
  }
  if (llvm::Error err = checkDeclaredBytes(infos, maxBytes, fileName))
    return err;
  if (headersOnly)
    return llvm::Error::success();
  for (auto [member, info] : llvm::zip_equal(members, infos)) {
    Array array;
    array.name = info.name;
    array.dtype = info.dtype;
    array.shape = info.shape;
    if (llvm::Error err = readData(member, array))
      return err;
    arrays.push_back(std::move(array));
  }
  return llvm::Error::success();
}

llvm::Expected<std::vector<Array>>
rnnc::weights::parseNpz(StringRef data, StringRef fileName, uint64_t maxBytes) {
  ZipReader reader(data, fileName);
  if (llvm::Error err = reader.read(/*headersOnly=*/false, maxBytes))
    return err;
  return std::move(reader.arrays);
}

llvm::Expected<std::vector<ArrayInfo>>
rnnc::weights::parseNpzHeaders(StringRef data, StringRef fileName) {
  ZipReader reader(data, fileName);
  if (llvm::Error err = reader.read(/*headersOnly=*/true,
                                    std::numeric_limits<uint64_t>::max()))
    return err;
  return std::move(reader.infos);
}

llvm::Expected<std::vector<Array>> rnnc::weights::readNpz(StringRef path,
                                                          uint64_t maxBytes) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return llvm::createStringError("cannot open '" + path +
                                   "': " + buffer.getError().message());
  return parseNpz((*buffer)->getBuffer(), path, maxBytes);
}

//===----------------------------------------------------------------------===//
// Writing
//===----------------------------------------------------------------------===//

static void put16(std::string &out, uint64_t v) {
  out += char(v & 0xff);
  out += char((v >> 8) & 0xff);
}
static void put32(std::string &out, uint64_t v) {
  put16(out, v & 0xffff);
  put16(out, (v >> 16) & 0xffff);
}

llvm::Expected<std::string>
rnnc::weights::serializeNpz(llvm::ArrayRef<Array> arrays) {
  constexpr uint16_t kVersion = 20, kDosDate = 0x21; // 1980-01-01 00:00
  std::string out, central;
  llvm::StringSet<> names;
  for (const Array &array : arrays) {
    if (!names.insert(array.name).second)
      return llvm::createStringError("duplicate array '" + array.name + "'");
    llvm::Expected<std::string> npy = serializeNpy(array);
    if (!npy)
      return npy.takeError();
    std::string name = array.name + ".npy";
    uint64_t offset = out.size();
    if (name.size() > 0xffff || npy->size() >= 0xffffffff ||
        offset >= 0xffffffff)
      return llvm::createStringError("array '" + array.name +
                                     "': too large for a zip archive");
    uint32_t crc = uint32_t(crc32(
        0, reinterpret_cast<const Bytef *>(npy->data()), uInt(npy->size())));
    // Local header, then the data.
    put32(out, kLocalSig);
    put16(out, kVersion);
    put16(out, 0); // flags
    put16(out, 0); // stored
    put16(out, 0); // time
    put16(out, kDosDate);
    put32(out, crc);
    put32(out, npy->size());
    put32(out, npy->size());
    put16(out, name.size());
    put16(out, 0); // extra length
    out += name;
    out += *npy;
    // Central directory record.
    put32(central, kCentralSig);
    put16(central, kVersion); // made by
    put16(central, kVersion); // needed
    put16(central, 0);
    put16(central, 0);
    put16(central, 0);
    put16(central, kDosDate);
    put32(central, crc);
    put32(central, npy->size());
    put32(central, npy->size());
    put16(central, name.size());
    put16(central, 0); // extra length
    put16(central, 0); // comment length
    put16(central, 0); // disk
    put16(central, 0); // internal attributes
    put32(central, 0); // external attributes
    put32(central, offset);
    central += name;
  }
  if (arrays.size() >= 0xffff || out.size() + central.size() >= 0xffffffff)
    return llvm::createStringError("too many or too large arrays for a zip "
                                   "archive");
  uint64_t dirOffset = out.size();
  out += central;
  put32(out, kEndSig);
  put16(out, 0);
  put16(out, 0);
  put16(out, arrays.size());
  put16(out, arrays.size());
  put32(out, central.size());
  put32(out, dirOffset);
  put16(out, 0); // comment length
  return out;
}

llvm::Error rnnc::weights::writeNpz(StringRef path,
                                    llvm::ArrayRef<Array> arrays) {
  llvm::Expected<std::string> bytes = serializeNpz(arrays);
  if (!bytes)
    return bytes.takeError();
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, llvm::sys::fs::OF_None);
  if (ec)
    return llvm::createStringError("cannot write '" + path +
                                   "': " + ec.message());
  os << *bytes;
  os.close();
  if (os.has_error()) {
    std::string msg = os.error().message();
    os.clear_error();
    return llvm::createStringError("cannot write '" + path + "': " + msg);
  }
  return llvm::Error::success();
}
