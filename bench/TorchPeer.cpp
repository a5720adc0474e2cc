//===- TorchPeer.cpp - PyTorch's nn.LSTM / nn.GRU in a child process ------===//

#include "TorchPeer.h"

#include "rnn/Weights/Npz.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"

#include <cstdio>
#include <cstdlib>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

using namespace rnnc;
using namespace rnnc::bench;
using weights::Array;

std::unique_ptr<TorchPeer> TorchPeer::start(const std::string &script,
                                            const std::string &blasDir,
                                            const std::string &scratch,
                                            bool swapGates,
                                            std::string &error) {
  std::unique_ptr<TorchPeer> peer(new TorchPeer());
  peer->scratchDir = scratch;
  // The child's environment: ours, with the BLAS and thread settings.
  std::vector<std::string> env;
  for (char **entry = environ; *entry; ++entry) {
    std::string var = *entry;
    std::string name = var.substr(0, var.find('='));
    if (name == "OPENBLAS_CORETYPE" || name == "OPENBLAS_L2_SIZE") {
      peer->removed += (peer->removed.empty() ? "" : " ") + var;
      continue;
    }
    if (name == "LD_LIBRARY_PATH" || name == "OMP_NUM_THREADS" ||
        name == "OPENBLAS_NUM_THREADS" || name == "MKL_NUM_THREADS")
      continue;
    env.push_back(var);
  }
  const char *ldPath = std::getenv("LD_LIBRARY_PATH");
  std::string libraryPath = blasDir;
  if (ldPath && *ldPath)
    libraryPath += (libraryPath.empty() ? "" : ":") + std::string(ldPath);
  if (!libraryPath.empty())
    env.push_back("LD_LIBRARY_PATH=" + libraryPath);
  env.push_back("OMP_NUM_THREADS=1");
  env.push_back("OPENBLAS_NUM_THREADS=1");
  env.push_back("MKL_NUM_THREADS=1");
  std::vector<char *> envp;
  for (std::string &var : env)
    envp.push_back(var.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv = {"/usr/bin/python3", script, "--serve"};
  if (swapGates)
    argv.push_back("--swap-gates");
  std::vector<char *> argvp;
  for (std::string &arg : argv)
    argvp.push_back(arg.data());
  argvp.push_back(nullptr);

  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) {
    error = "cannot create pipes for the PyTorch peer";
    return nullptr;
  }
  std::fflush(nullptr);
  peer->pid = fork();
  if (peer->pid < 0) {
    error = "cannot fork the PyTorch peer";
    return nullptr;
  }
  if (peer->pid == 0) {
    dup2(down[0], 0);
    dup2(up[1], 1);
    close(down[0]);
    close(down[1]);
    close(up[0]);
    close(up[1]);
    execve(argvp[0], argvp.data(), envp.data());
    std::perror("rnn-bench: cannot run /usr/bin/python3");
    _exit(127);
  }
  close(down[0]);
  close(up[1]);
  peer->toChild = fdopen(down[1], "w");
  peer->fromChild = fdopen(up[0], "r");

  // The greeting: versions and the BLAS the process really mapped.
  std::string hello;
  if (!peer->exchange("", hello, error))
    return nullptr;
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(hello);
  const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
  if (!object || !object->getBoolean("ok").value_or(false)) {
    if (!value)
      llvm::consumeError(value.takeError());
    error = "the PyTorch peer failed to start: " + hello;
    return nullptr;
  }
  std::string torch = object->getString("torch").value_or("?").str();
  std::string blas = object->getString("blas").value_or("?").str();
  std::string core = object->getString("openblas_core").value_or("").str();
  peer->openBlas = blas.find("openblas") != std::string::npos;
  std::string engine =
      object->getString("quantized_engine").value_or("?").str();
  peer->about =
      "PyTorch " + torch + " on " + blas +
      (core.empty() || !peer->openBlas ? "" : " (OpenBLAS core " + core + ")") +
      ", quantized engine " + engine;
  return peer;
}

TorchPeer::~TorchPeer() {
  if (toChild)
    std::fclose(static_cast<FILE *>(toChild));
  if (fromChild)
    std::fclose(static_cast<FILE *>(fromChild));
  if (pid > 0) {
    int status;
    waitpid(pid, &status, 0);
  }
}

bool TorchPeer::exchange(const std::string &request, std::string &reply,
                         std::string &error) {
  if (!request.empty()) {
    FILE *out = static_cast<FILE *>(toChild);
    if (std::fputs((request + "\n").c_str(), out) < 0 || std::fflush(out)) {
      error = "the PyTorch peer is gone";
      return false;
    }
  }
  char *line = nullptr;
  size_t capacity = 0;
  ssize_t length = getline(&line, &capacity, static_cast<FILE *>(fromChild));
  if (length <= 0) {
    std::free(line);
    error = "the PyTorch peer exited (see its messages above)";
    return false;
  }
  reply.assign(line, length);
  std::free(line);
  while (!reply.empty() && (reply.back() == '\n' || reply.back() == '\r'))
    reply.pop_back();
  return true;
}

bool TorchPeer::run(const Problem &problem, bool timed, const Policy &policy,
                    Outputs &outputs, Stats &stats, std::string &error) {
  const Config &config = problem.config;
  std::string base = scratchDir + "/torch-" + std::to_string(requests++);
  std::string in = base + "-in.npz", out = base + "-out.npz";
  {
    std::vector<Array> arrays = inputArrays(problem);
    for (const auto &[key, tensor] : problem.params)
      arrays.push_back(
          weights::makeArray("params/" + key, tensor.shape, tensor.data));
    if (llvm::Error e = weights::writeNpz(in, arrays)) {
      error = llvm::toString(std::move(e));
      return false;
    }
  }
  llvm::json::Object request{
      {"input", in},
      {"output", out},
      {"cell", config.cell == CellType::LSTM ? "lstm" : "gru"},
      {"bidirectional", config.bidirectional},
      {"quantized", config.precision == Precision::Int8Weights ||
                        config.precision == Precision::Int8Dynamic},
      {"threads", config.threads},
      {"timed", timed},
      {"target_seconds", policy.targetSeconds},
      {"min_reps", policy.minReps},
      {"max_reps", policy.maxReps}};
  std::string text;
  llvm::raw_string_ostream os(text);
  os << llvm::json::Value(std::move(request));
  std::string reply;
  bool ok = exchange(os.str(), reply, error);
  llvm::sys::fs::remove(in);
  if (!ok)
    return false;
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(reply);
  const llvm::json::Object *object = value ? value->getAsObject() : nullptr;
  if (!value)
    llvm::consumeError(value.takeError());
  if (!object || !object->getBoolean("ok").value_or(false)) {
    llvm::sys::fs::remove(out);
    error = "PyTorch peer: " +
            (object ? object->getString("error").value_or(reply).str() : reply);
    return false;
  }
  stats = Stats();
  if (const llvm::json::Array *seconds = object->getArray("seconds"))
    for (const llvm::json::Value &s : *seconds)
      stats.seconds.push_back(s.getAsNumber().value_or(0));
  stats.summarize();

  auto arrays = weights::readNpz(out);
  llvm::sys::fs::remove(out);
  if (!arrays) {
    error = llvm::toString(arrays.takeError());
    return false;
  }
  outputs = Outputs();
  int64_t n = config.batch, h = config.hidden;
  for (const Array &array : *arrays) {
    auto values = weights::toFloat32(array);
    if (!values) {
      error = llvm::toString(values.takeError());
      return false;
    }
    if (array.name == "y") {
      outputs.y = std::move(*values);
      continue;
    }
    // h and c are [D, B, H].
    for (int64_t dir = 0; dir < config.directions(); ++dir) {
      std::string prefix = !config.bidirectional ? ""
                           : dir == 0            ? "forward/"
                                                 : "backward/";
      if (static_cast<int64_t>(values->size()) < (dir + 1) * n * h)
        break;
      outputs.carries[prefix + array.name].assign(
          values->begin() + dir * n * h, values->begin() + (dir + 1) * n * h);
    }
  }
  return true;
}
