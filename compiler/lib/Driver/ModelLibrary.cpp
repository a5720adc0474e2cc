//===- ModelLibrary.cpp - A compiled model, loaded and callable -----------===//

#include "rnn/Driver/ModelLibrary.h"
#include "rnn/ABI/EntryPointABI.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>
#include <utility>

using namespace mlir;
using namespace rnnc;

namespace {

/// Calls `fn(args[0], ..., args[N-1])` for an entry point taking N pointers.
template <size_t... I>
int32_t callWithPointers(void *fn, void *const *args,
                         std::index_sequence<I...>) {
  using Fn = int32_t (*)(decltype((void)I, static_cast<void *>(nullptr))...);
  return reinterpret_cast<Fn>(fn)(args[I]...);
}

template <size_t... N>
int32_t dispatch(void *fn, const std::vector<void *> &args,
                 std::index_sequence<N...>) {
  int32_t status = -1;
  (void)((args.size() == N
              ? (status = callWithPointers(fn, args.data(),
                                           std::make_index_sequence<N>()),
                 true)
              : false) ||
         ...);
  return status;
}

/// Runs `program` with `args`; returns why it failed, if it did.
std::optional<std::string> execute(StringRef program,
                                   ArrayRef<std::string> args) {
  auto path = llvm::sys::findProgramByName(program);
  if (!path)
    return "cannot find '" + program.str() + "' to build the model";
  SmallVector<StringRef> argv{*path};
  argv.append(args.begin(), args.end());
  std::string message;
  int code = llvm::sys::ExecuteAndWait(*path, argv, std::nullopt, {}, 0, 0,
                                       &message);
  if (code != 0)
    return "'" + program.str() + "' failed" +
           (message.empty() ? "" : ": " + message);
  return std::nullopt;
}

/// C that calls the header's inline `<name>_run_parallel` with an array of
/// `count` parameter pointers, on a pool of `threads` it starts on the first
/// call (harness code: the state is the library's, never the model's).
std::string parallelShim(StringRef name, size_t count, int threads) {
  std::string prefix = rnn::abi::macroPrefix(name);
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "#include \"" << rnn::abi::kRuntimeHeader << "\"\n#include \"" << name
     << ".h\"\n"
     << "static _Alignas(64) char pool_memory[1 << 14];\n"
     << "static rnnrt_pool *pool;\n"
     << "int32_t rnnc_shim_run(void *const *a, void *workspace) {\n"
     << "  if (!pool) {\n"
     << "    if (rnnrt_pool_size(" << threads << ") > sizeof pool_memory)\n"
     << "      return -1;\n"
     << "    pool = rnnrt_pool_init(pool_memory, " << threads << ");\n"
     << "  }\n"
     << "  return " << rnn::abi::entryPointName(name) << "_parallel(";
  for (size_t i = 0; i < count; ++i)
    os << "a[" << i << "], ";
  os << "workspace, rnnrt_pool_parallel_for, pool);\n}\n"
     << "size_t rnnc_shim_workspace_size(void) { return " << prefix
     << "WORKSPACE_SIZE_PARALLEL; }\n"
     << "int rnnc_shim_tasks(void) { return " << prefix << "PARALLEL_TASKS; }\n"
     << "void rnnc_shim_shutdown(void) {\n"
     << "  if (pool)\n    rnnrt_pool_destroy(pool);\n  pool = 0;\n}\n";
  return text;
}

} // namespace

std::unique_ptr<ModelLibrary> ModelLibrary::load(const Compiled &compiled,
                                                 Emit emit, StringRef name,
                                                 Location loc, int threads) {
  if (compiled.parameters.size() + 1 > kMaxParameters) {
    emitError(loc) << "the model has more than " << kMaxParameters - 1
                   << " inputs and outputs";
    return nullptr;
  }
  std::unique_ptr<ModelLibrary> library(new ModelLibrary());
  SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("rnnc-model", dir)) {
    emitError(loc) << "cannot create a temporary directory";
    return nullptr;
  }
  library->directory = std::string(dir);
  std::string source =
      (dir + "/" + name + (emit == Emit::C ? ".c" : ".o")).str();
  std::string header = (dir + "/" + name + ".h").str();
  std::string shared = (dir + "/" + name + ".so").str();
  std::string shim = (dir + "/" + name + "_parallel.c").str();
  std::string shimText =
      threads > 1 ? parallelShim(name, compiled.parameters.size(), threads)
                  : std::string();
  std::vector<std::pair<std::string, const std::string *>> files{
      {source, &compiled.code}, {header, &compiled.header}};
  if (threads > 1)
    files.push_back({shim, &shimText});
  for (const auto &[path, text] : files) {
    std::error_code error;
    llvm::raw_fd_ostream os(path, error);
    if (error) {
      emitError(loc) << "cannot write '" << path << "': " << error.message();
      return nullptr;
    }
    os << *text;
  }
  std::vector<std::string> args{"-shared", "-fPIC", "-O2", "-o", shared,
                                source};
  if (threads > 1)
    args.insert(args.end(), {"-std=c11", "-I", RNN_RUNTIME_INCLUDE_DIR,
                             "-pthread", shim});
  args.insert(args.end(), {RNN_RUNTIME_LIBRARY, "-lm"});
  // Generated C must build under the contract's strict flags: every C run
  // checks it.
  if (emit == Emit::C)
    args.insert(args.begin(), {"-std=c99", "-Wall", "-Wextra", "-Werror",
                               "-pedantic", "-I", RNN_RUNTIME_INCLUDE_DIR});
  if (auto failure = execute("cc", args)) {
    emitError(loc) << *failure;
    return nullptr;
  }
  library->handle = dlopen(shared.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library->handle) {
    emitError(loc) << "cannot load the compiled model: " << dlerror();
    return nullptr;
  }
  std::string entryName = rnn::abi::entryPointName(name);
  library->entry = dlsym(library->handle, entryName.c_str());
  if (!library->entry) {
    emitError(loc) << "the compiled model has no '" << entryName << "'";
    return nullptr;
  }
  size_t workspaceSize = compiled.workspaceSize;
  if (threads > 1) {
    auto symbol = [&](const char *what) {
      return dlsym(library->handle, what);
    };
    auto sizeOf = reinterpret_cast<size_t (*)()>(
        symbol("rnnc_shim_workspace_size"));
    auto tasksOf = reinterpret_cast<int (*)()>(symbol("rnnc_shim_tasks"));
    library->parallelEntry = symbol("rnnc_shim_run");
    if (!sizeOf || !tasksOf || !library->parallelEntry) {
      emitError(loc) << "the compiled model has no parallel entry point";
      return nullptr;
    }
    workspaceSize = sizeOf();
    library->tasks = tasksOf();
  }
  // The workspace, aligned as the header recommends (WORKSPACE_ALIGNMENT).
  size_t alignment = compiled.workspaceAlignment;
  library->workspace.resize(workspaceSize + alignment);
  uintptr_t address = reinterpret_cast<uintptr_t>(library->workspace.data());
  library->alignedWorkspace =
      library->workspace.data() + (alignment - address % alignment) % alignment;
  return library;
}

ModelLibrary::~ModelLibrary() {
  if (handle && parallelEntry)
    if (auto shutdown =
            reinterpret_cast<void (*)()>(dlsym(handle, "rnnc_shim_shutdown")))
      shutdown();
  if (handle)
    dlclose(handle);
  if (!directory.empty())
    llvm::sys::fs::remove_directories(directory);
}

int32_t ModelLibrary::run(const std::vector<void *> &parameters) {
  if (parallelEntry)
    return reinterpret_cast<int32_t (*)(void *const *, void *)>(parallelEntry)(
        parameters.data(), alignedWorkspace);
  std::vector<void *> args = parameters;
  args.push_back(alignedWorkspace);
  return dispatch(entry, args, std::make_index_sequence<kMaxParameters + 1>());
}
