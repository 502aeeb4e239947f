#include "conformance/runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "core/status_macros.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define HLOVM_CONFORMANCE_SANITIZED 1
#else
#define HLOVM_CONFORMANCE_SANITIZED 0
#endif

namespace hlovm {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

absl::string_view Sv(std::string_view s) { return absl::string_view(s.data(), s.size()); }

std::string Escape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string Unescape(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 1 < s.size()) {
      const char n = s[++i];
      out += n == 'n' ? '\n' : n == 't' ? '\t' : n == 'r' ? '\r' : n;
    } else {
      out += s[i];
    }
  }
  return out;
}

// Keeps the last `max` bytes of `text` (on a line boundary when possible).
std::string Tail(const std::string& text, size_t max) {
  if (text.size() <= max) return text;
  std::string tail = text.substr(text.size() - max);
  const size_t nl = tail.find('\n');
  if (nl != std::string::npos && nl + 1 < tail.size()) tail = tail.substr(nl + 1);
  return "..." + tail;
}

// The length of the well-formed UTF-8 sequence of two to four bytes at
// `text[i]`, or 0 when the bytes there are not one.
size_t Utf8SequenceLength(std::string_view text, size_t i) {
  const unsigned char lead = static_cast<unsigned char>(text[i]);
  size_t length;
  unsigned char low = 0x80, high = 0xbf;  // the range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    length = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    length = 3;
    if (lead == 0xe0) low = 0xa0;   // no overlong forms
    if (lead == 0xed) high = 0x9f;  // no surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    length = 4;
    if (lead == 0xf0) low = 0x90;
    if (lead == 0xf4) high = 0x8f;  // nothing above U+10FFFF
  } else {
    return 0;
  }
  if (i + length > text.size()) return 0;
  for (size_t k = 1; k < length; ++k) {
    const unsigned char c = static_cast<unsigned char>(text[i + k]);
    if (c < (k == 1 ? low : 0x80) || c > (k == 1 ? high : 0xbf)) return 0;
  }
  return length;
}

// `text` on one line that a terminal shows as it is: line breaks and tabs
// become spaces, other control bytes and bytes that are not UTF-8 are
// written \xNN. Text that is mostly such bytes (a binary file's) is cut
// after a few of them, and the result after about `max` bytes.
std::string OneLine(std::string_view text, size_t max = 400) {
  constexpr int kMaxEscapes = 16;
  std::string out;
  int escapes = 0;
  for (size_t i = 0; i < text.size() && out.size() <= max;) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
      ++i;
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
      ++i;
    } else if (const size_t n = c >= 0x80 ? Utf8SequenceLength(text, i) : 0; n > 0) {
      out.append(text.substr(i, n));
      i += n;
    } else {
      if (++escapes > kMaxEscapes) {
        absl::StrAppend(&out, "... (binary data; ", text.size() - i, " more bytes left out)");
        return out;
      }
      absl::StrAppend(&out, absl::StrFormat("\\x%02x", c));
      ++i;
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > max) {
    size_t cut = max;
    // Not inside a UTF-8 sequence.
    while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xc0) == 0x80) --cut;
    out = out.substr(0, cut) + "...";
  }
  return out;
}

std::string SignalName(int sig) {
  switch (sig) {
    case SIGSEGV:
      return "SIGSEGV";
    case SIGABRT:
      return "SIGABRT";
    case SIGBUS:
      return "SIGBUS";
    case SIGFPE:
      return "SIGFPE";
    case SIGILL:
      return "SIGILL";
    case SIGKILL:
      return "SIGKILL";
    case SIGTERM:
      return "SIGTERM";
    default:
      return absl::StrCat("signal ", sig);
  }
}

}  // namespace

std::string_view CaseOutcomeName(CaseOutcome outcome) {
  switch (outcome) {
    case CaseOutcome::kPassed:
      return "passed";
    case CaseOutcome::kFailed:
      return "failed";
    case CaseOutcome::kErrored:
      return "errored";
    case CaseOutcome::kSkipped:
      return "skipped";
  }
  return "errored";
}

void ParseCaseHeader(std::string_view text, CaseInfo* info) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    absl::string_view line = absl::StripAsciiWhitespace(Sv(text.substr(pos, end - pos)));
    pos = end + 1;
    if (line.empty()) continue;
    if (!absl::ConsumePrefix(&line, "//")) break;  // the header is the leading comment block
    line = absl::StripLeadingAsciiWhitespace(line);
    if (absl::StartsWith(line, "RUN-DISABLED")) {
      // The StableHLO programs' own mark (`// RUN-DISABLED(reason)`).
      info->set_apart = true;
      if (!info->note.empty()) info->note += "; ";
      info->note += std::string(line);
    } else if (absl::ConsumePrefix(&line, "family:")) {
      info->family = std::string(absl::StripAsciiWhitespace(line));
    } else if (absl::ConsumePrefix(&line, "note:")) {
      line = absl::StripAsciiWhitespace(line);
      if (absl::StrContains(line, "RUN-DISABLED") || absl::StartsWith(line, "fragile")) {
        info->set_apart = true;
        if (!info->note.empty()) info->note += "; ";
        info->note += std::string(line);
      }
    }
  }
  if (info->family.empty()) info->family = "unknown";
}

namespace {

// A file's identity: the same file reached by two paths (a symbolic link, a
// hard link, an argument given twice) has one.
using FileId = std::pair<uint64_t, uint64_t>;  // device, inode

FileId IdOf(const struct stat& st) {
  return {static_cast<uint64_t>(st.st_dev), static_cast<uint64_t>(st.st_ino)};
}

std::string KindOf(mode_t mode) {
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// HLO cases, and StableHLO programs (read by the StableHLO frontend).
bool IsCaseName(const fs::path& path) {
  return path.extension() == ".hlo" || path.extension() == ".mlir";
}

// The family of a StableHLO program without a `// family:` line: its file
// name up to the first element type or size ("dot_general_int8_4_3" is
// dot_general).
std::string FamilyFromStem(std::string_view stem) {
  std::vector<absl::string_view> parts = absl::StrSplit(Sv(stem), '_');
  std::string family;
  for (absl::string_view part : parts) {
    static constexpr const char* kTypes[] = {"float", "int", "uint", "bool", "complex", "bfloat"};
    bool stop = part.empty() || (part[0] >= '0' && part[0] <= '9');
    for (const char* t : kTypes) stop = stop || absl::StartsWith(part, t);
    if (stop && !family.empty()) break;
    if (!family.empty()) family += "_";
    family += std::string(part.data(), part.size());
  }
  return family.empty() ? std::string(stem) : family;
}

// Why stat() failed on `path`, which lstat() may still see (a link).
absl::Status StatError(const fs::path& path, int error) {
  struct stat link;
  std::string why;
  if (error == ENOENT && lstat(path.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
    why = "a dangling symbolic link";
  } else if (error == ELOOP) {
    why = "a loop of symbolic links";
  } else if (error == ENOENT) {
    why = "no such file or directory";
  } else {
    why = std::strerror(error);
  }
  return absl::InvalidArgumentError(absl::StrCat(path.string(), ": ", why));
}

// A case file as the walk found it.
struct FoundFile {
  fs::path path;
  FileId id;
  bool through_link = false;  // reached through a symbolic link
};

// Walks the arguments of DiscoverCases. Every directory is entered once,
// known by device and inode, so that a symbolic link back up the tree (or
// to a folder walked before) leads nowhere new. Real folders are walked
// before those reached through links, so that a file found both ways is
// named by its real path. A `.hlo` entry that cannot be read as a case
// (a FIFO, a socket, a dangling link) is an error, as is a dangling link
// of any name (it might have been a folder of cases).
class CaseWalker {
 public:
  // Appends the case files under (or at) `arg`; `*any` is set when it
  // names a folder with case files or a file (before de-duplication).
  absl::Status Walk(const std::string& arg, std::vector<FoundFile>* found, bool* any) {
    const fs::path root(arg);
    struct stat st;
    if (stat(root.c_str(), &st) != 0) return StatError(root, errno);
    if (S_ISREG(st.st_mode)) {
      // Named on the command line: taken whatever its extension.
      struct stat link;
      const bool through_link = lstat(root.c_str(), &link) == 0 && S_ISLNK(link.st_mode);
      found->push_back({root, IdOf(st), through_link});
      *any = true;
      return absl::OkStatus();
    }
    if (!S_ISDIR(st.st_mode)) {
      return absl::InvalidArgumentError(
          absl::StrCat(arg, ": ", KindOf(st.st_mode), ", not a case file or a folder"));
    }
    if (!directories_.insert(IdOf(st)).second) {
      *any = true;  // walked already (an argument given twice, or a folder inside one)
      return absl::OkStatus();
    }
    const size_t before = found->size();
    std::vector<std::pair<fs::path, bool>> pending = {{root, false}};  // folder, through a link
    std::vector<fs::path> links;  // links to folders, walked once the real tree is done
    while (!pending.empty() || !links.empty()) {
      while (!pending.empty()) {
        auto [dir, through_link] = pending.back();
        pending.pop_back();
        HLOVM_RETURN_IF_ERROR(ReadFolder(dir, through_link, &pending, &links, found));
      }
      std::sort(links.begin(), links.end());
      for (const fs::path& link : links) {
        if (stat(link.c_str(), &st) != 0) return StatError(link, errno);
        if (directories_.insert(IdOf(st)).second) pending.push_back({link, true});
      }
      links.clear();
      std::reverse(pending.begin(), pending.end());
    }
    *any = found->size() > before;
    return absl::OkStatus();
  }

 private:
  absl::Status ReadFolder(const fs::path& dir, bool through_link,
                          std::vector<std::pair<fs::path, bool>>* pending,
                          std::vector<fs::path>* links, std::vector<FoundFile>* found) {
    std::error_code ec;
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      entries.push_back(it->path());
    }
    if (ec) return absl::InvalidArgumentError(absl::StrCat(dir.string(), ": ", ec.message()));
    std::sort(entries.begin(), entries.end());
    std::vector<std::pair<fs::path, bool>> subfolders;
    for (const fs::path& entry : entries) {
      struct stat st;
      if (lstat(entry.c_str(), &st) != 0) return StatError(entry, errno);
      bool linked = through_link;
      if (S_ISLNK(st.st_mode)) {
        if (stat(entry.c_str(), &st) != 0) return StatError(entry, errno);
        if (S_ISDIR(st.st_mode)) {
          links->push_back(entry);
          continue;
        }
        linked = true;
      }
      if (S_ISDIR(st.st_mode)) {
        if (directories_.insert(IdOf(st)).second) subfolders.push_back({entry, linked});
      } else if (IsCaseName(entry)) {
        if (!S_ISREG(st.st_mode)) {
          return absl::InvalidArgumentError(
              absl::StrCat(entry.string(), ": ", KindOf(st.st_mode), ", not a case file"));
        }
        found->push_back({entry, IdOf(st), linked});
      }
    }
    // Depth first, in name order.
    pending->insert(pending->end(), subfolders.rbegin(), subfolders.rend());
    return absl::OkStatus();
  }

  std::set<FileId> directories_;
};

}  // namespace

absl::StatusOr<std::vector<CaseInfo>> DiscoverCases(const std::vector<std::string>& paths) {
  std::vector<CaseInfo> cases;
  CaseWalker walker;
  std::set<FileId> files;
  for (const std::string& arg : paths) {
    std::vector<FoundFile> found;
    bool any = false;
    HLOVM_RETURN_IF_ERROR(walker.Walk(arg, &found, &any));
    if (!any) return absl::InvalidArgumentError(absl::StrCat(arg, ": no .hlo case files (nor .mlir programs) in it"));
    // The same file found twice is one case: the one reached without a
    // link, else the first by name, keeps it.
    std::stable_sort(found.begin(), found.end(), [](const FoundFile& a, const FoundFile& b) {
      return std::tie(a.through_link, a.path) < std::tie(b.through_link, b.path);
    });
    std::vector<fs::path> kept;
    for (const FoundFile& file : found) {
      if (files.insert(file.id).second) kept.push_back(file.path);
    }
    std::sort(kept.begin(), kept.end());
    const fs::path root(arg);
    std::error_code ec;
    const bool folder = fs::is_directory(root, ec);
    for (const fs::path& file : kept) {
      CaseInfo info;
      info.path = file.string();
      fs::path rel = folder ? file.lexically_relative(root) : file.filename();
      rel.replace_extension();
      info.name = rel.string();
      std::ifstream in(file);
      if (!in) return absl::InvalidArgumentError(absl::StrCat(info.path, ": cannot read"));
      std::string head;
      std::string line;
      for (int i = 0; i < 64 && std::getline(in, line); ++i) absl::StrAppend(&head, line, "\n");
      ParseCaseHeader(head, &info);
      if (info.family == "unknown" && file.extension() == ".mlir") {
        info.family = FamilyFromStem(file.stem().string());
      }
      cases.push_back(std::move(info));
    }
  }
  if (cases.empty()) return absl::InvalidArgumentError("no cases to run");
  return cases;
}

//===--- The child's line protocol -----------------------------------------===//

std::string SerializeCaseResult(const CaseResult& result) {
  std::string out = absl::StrCat("hlovm-case-result\n", "outcome\t", Sv(CaseOutcomeName(result.outcome)),
                                 "\n", "message\t", Escape(result.message), "\n", "seconds\t",
                                 absl::StrFormat("%.6f", result.seconds), "\n");
  if (result.check) absl::StrAppend(&out, "check\t", SerializeCheckFailure(*result.check), "\n");
  if (!result.root.empty()) absl::StrAppend(&out, "root\t", Escape(result.root), "\n");
  if (result.compare_mismatch) absl::StrAppend(&out, "compare_mismatch\t1\n");
  absl::StrAppend(&out, "end\n");
  return out;
}

absl::StatusOr<CaseResult> ParseCaseResult(std::string_view text, const CaseInfo& info) {
  const size_t start = text.find("hlovm-case-result\n");
  if (start == std::string_view::npos) return absl::InvalidArgumentError("no result");
  CaseResult result;
  result.info = info;
  bool have_outcome = false, have_end = false;
  for (absl::string_view line : absl::StrSplit(Sv(text.substr(start)), '\n')) {
    const size_t tab = line.find('\t');
    absl::string_view key = line.substr(0, tab);
    absl::string_view value = tab == absl::string_view::npos ? "" : line.substr(tab + 1);
    if (key == "outcome") {
      have_outcome = true;
      if (value == "passed") {
        result.outcome = CaseOutcome::kPassed;
      } else if (value == "failed") {
        result.outcome = CaseOutcome::kFailed;
      } else if (value == "skipped") {
        result.outcome = CaseOutcome::kSkipped;
      } else {
        result.outcome = CaseOutcome::kErrored;
      }
    } else if (key == "message") {
      result.message = Unescape(std::string_view(value.data(), value.size()));
    } else if (key == "seconds") {
      (void)absl::SimpleAtod(value, &result.seconds);
    } else if (key == "check") {
      result.check = ParseCheckFailure(std::string_view(value.data(), value.size()));
    } else if (key == "root") {
      result.root = Unescape(std::string_view(value.data(), value.size()));
    } else if (key == "compare_mismatch") {
      result.compare_mismatch = value == "1";
    } else if (key == "end") {
      have_end = true;
      break;
    }
  }
  if (!have_outcome || !have_end) return absl::InvalidArgumentError("incomplete result");
  return result;
}

//===--- Running children --------------------------------------------------===//

namespace {

struct Child {
  size_t case_index = 0;
  pid_t pid = -1;
  int out_fd = -1;
  int err_fd = -1;
  std::string out;
  std::string err;
  Clock::time_point start;
  bool timed_out = false;
  int64_t killed_at_resident_mb = 0;  // > 0: killed for its resident memory
};

// The resident memory of process `pid` in MiB (0 when unknown).
int64_t ResidentMiB(pid_t pid) {
  char path[64];
  std::snprintf(path, sizeof(path), "/proc/%d/statm", static_cast<int>(pid));
  const int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buffer[128];
  const ssize_t n = read(fd, buffer, sizeof(buffer) - 1);
  close(fd);
  if (n <= 0) return 0;
  buffer[n] = '\0';
  long long size = 0, resident = 0;
  if (std::sscanf(buffer, "%lld %lld", &size, &resident) != 2) return 0;
  return static_cast<int64_t>(resident) * sysconf(_SC_PAGESIZE) >> 20;
}

// The line of `err` from `marker` on, at the first (or the `last`) place
// where that line names a sanitizer; empty when there is none.
std::string SanitizerLine(const std::string& err, const char* marker, bool last) {
  size_t at = last ? err.rfind(marker) : err.find(marker);
  while (at != std::string::npos) {
    const size_t end = err.find('\n', at);
    const absl::string_view line =
        absl::string_view(err).substr(at, end == std::string::npos ? std::string::npos : end - at);
    if (absl::StrContains(line, "Sanitizer")) return std::string(line);
    if (last) {
      at = at == 0 ? std::string::npos : err.rfind(marker, at - 1);
    } else {
      at = err.find(marker, at + 1);
    }
  }
  return "";
}

// The line a sanitizer's report ends with ("SUMMARY: AddressSanitizer:
// SEGV ..."), else its first "runtime error:" line; empty when `err` holds
// neither.
std::string SanitizerSummary(const std::string& err) {
  if (std::string summary = SanitizerLine(err, "SUMMARY: ", /*last=*/true); !summary.empty()) {
    return summary;
  }
  const size_t at = err.find("runtime error:");
  if (at == std::string::npos) return "";
  const size_t line_start = err.rfind('\n', at);
  const size_t begin = line_start == std::string::npos ? 0 : line_start + 1;
  const size_t end = err.find('\n', at);
  return err.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

void ReadAvailable(int* fd, std::string* into) {
  if (*fd < 0) return;
  char buffer[65536];
  while (true) {
    const ssize_t n = read(*fd, buffer, sizeof(buffer));
    if (n > 0) {
      // Keep memory bounded if a child floods its output.
      if (into->size() < (64u << 20)) into->append(buffer, n);
      continue;
    }
    if (n == 0) {
      close(*fd);
      *fd = -1;
    }
    return;  // EAGAIN or error: try again later
  }
}

absl::StatusOr<Child> StartChild(const RunnerOptions& options, const CaseInfo& info) {
  const std::vector<std::string>& command = options.child_command;
  const int64_t memory_limit_mb = options.memory_limit_mb;
  int out_pipe[2], err_pipe[2];
  if (pipe(out_pipe) != 0) return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  if (pipe(err_pipe) != 0) {
    close(out_pipe[0]);
    close(out_pipe[1]);
    return absl::InternalError(absl::StrCat("pipe: ", std::strerror(errno)));
  }
  std::vector<std::string> args = command;
  args.push_back(info.path);
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);

  // Nothing buffered may be written twice (once by each process).
  std::fflush(stdout);
  std::fflush(stderr);
  const pid_t pid = fork();
  if (pid < 0) {
    for (int fd : {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1]}) close(fd);
    return absl::InternalError(absl::StrCat("fork: ", std::strerror(errno)));
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls until exec.
    setpgid(0, 0);
    if (memory_limit_mb > 0 && !HLOVM_CONFORMANCE_SANITIZED) {
      struct rlimit limit;
      limit.rlim_cur = limit.rlim_max = static_cast<rlim_t>(memory_limit_mb) << 20;
      setrlimit(RLIMIT_AS, &limit);
    }
    const int null_fd = open("/dev/null", O_RDONLY);
    if (null_fd >= 0) dup2(null_fd, 0);
    dup2(out_pipe[1], 1);
    dup2(err_pipe[1], 2);
    close(out_pipe[0]);
    close(err_pipe[0]);
    if (options.fork_function) {
      const std::string text = SerializeCaseResult(options.fork_function(info));
      std::fflush(stdout);
      size_t done = 0;
      while (done < text.size()) {
        const ssize_t n = write(1, text.data() + done, text.size() - done);
        if (n <= 0) break;
        done += n;
      }
      _exit(0);
    }
    execv(argv[0], argv.data());
    const char msg[] = "cannot execute the case runner\n";
    (void)!write(2, msg, sizeof(msg) - 1);
    _exit(127);
  }
  setpgid(pid, pid);  // also from the parent, to avoid racing the child
  close(out_pipe[1]);
  close(err_pipe[1]);
  fcntl(out_pipe[0], F_SETFL, fcntl(out_pipe[0], F_GETFL) | O_NONBLOCK);
  fcntl(err_pipe[0], F_SETFL, fcntl(err_pipe[0], F_GETFL) | O_NONBLOCK);
  fcntl(out_pipe[0], F_SETFD, FD_CLOEXEC);
  fcntl(err_pipe[0], F_SETFD, FD_CLOEXEC);
  Child child;
  child.pid = pid;
  child.out_fd = out_pipe[0];
  child.err_fd = err_pipe[0];
  child.start = Clock::now();
  return child;
}

CaseResult FinishChild(Child& child, const CaseInfo& info, int wait_status, double timeout,
                       int64_t memory_limit_mb) {
  ReadAvailable(&child.out_fd, &child.out);
  ReadAvailable(&child.err_fd, &child.err);
  if (child.out_fd >= 0) close(child.out_fd);
  if (child.err_fd >= 0) close(child.err_fd);
  child.out_fd = child.err_fd = -1;
  const double seconds = std::chrono::duration<double>(Clock::now() - child.start).count();

  CaseResult result;
  result.info = info;
  result.seconds = seconds;
  const std::string stderr_tail = OneLine(Tail(child.err, 600), 600);
  if (child.timed_out) {
    result.outcome = CaseOutcome::kErrored;
    result.message = absl::StrFormat("timed out after %gs (killed)", timeout);
    // A sanitizer that caught an error may still have been writing its
    // report (symbolizing a stack is slow on a loaded machine): what it
    // found is the news, not the time it took to say so. The report's first
    // line: "==123==ERROR: AddressSanitizer: SEGV on unknown address ...".
    if (const std::string found = SanitizerLine(child.err, "ERROR: ", /*last=*/false);
        !found.empty()) {
      absl::StrAppend(&result.message, " while writing a sanitizer report: ", OneLine(found, 300));
    }
    return result;
  }
  if (child.killed_at_resident_mb > 0) {
    result.outcome = CaseOutcome::kErrored;
    result.message = absl::StrFormat(
        "out of memory: %d MiB resident, over the limit of %d MiB (killed)",
        child.killed_at_resident_mb, memory_limit_mb);
    return result;
  }
  // A sanitizer that found an error reports it on stderr and exits (with
  // code 1 unless told otherwise), or intercepts a crash signal: its
  // summary says what happened.
  if (const std::string summary = SanitizerSummary(child.err);
      !summary.empty() && !(WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == 0)) {
    result.outcome = CaseOutcome::kErrored;
    result.message = absl::StrCat(
        WIFEXITED(wait_status) ? absl::StrCat("exited with code ", WEXITSTATUS(wait_status))
                               : absl::StrCat("crashed (", SignalName(WTERMSIG(wait_status)), ")"),
        " after a sanitizer report: ", OneLine(summary, 300));
    return result;
  }
  if (WIFEXITED(wait_status)) {
    auto parsed = ParseCaseResult(child.out, info);
    if (parsed.ok()) {
      parsed->seconds = seconds;
      return *std::move(parsed);
    }
    result.outcome = CaseOutcome::kErrored;
    result.message = absl::StrCat("the case runner exited with code ", WEXITSTATUS(wait_status),
                                  " without a result", stderr_tail.empty() ? "" : ": ", stderr_tail);
    return result;
  }
  result.outcome = CaseOutcome::kErrored;
  if (WIFSIGNALED(wait_status)) {
    const int sig = WTERMSIG(wait_status);
    const bool oom = absl::StrContains(child.err, "bad_alloc") ||
                     absl::StrContains(child.err, "out of memory") ||
                     absl::StrContains(child.err, "ResourceExhausted") || sig == SIGKILL;
    result.message = absl::StrCat("crashed (", SignalName(sig), ")",
                                  oom ? ", probably out of memory" : "",
                                  stderr_tail.empty() ? "" : ": ", stderr_tail);
  } else {
    result.message = "the case runner ended abnormally";
  }
  return result;
}

volatile sig_atomic_t g_interrupted = 0;
void OnInterrupt(int) { g_interrupted = 1; }

}  // namespace

std::vector<CaseResult> RunCases(const std::vector<CaseInfo>& cases, const RunnerOptions& options) {
  std::vector<std::optional<CaseResult>> results(cases.size());
  std::vector<Child> running;
  const int jobs = std::max(1, options.jobs);
  size_t next = 0;
  int done = 0;
  bool stop = false;
  // Children run in process groups of their own (so that a case's threads
  // and anything it starts can be killed together); Ctrl-C must therefore
  // end them from here.
  g_interrupted = 0;
  struct sigaction on_interrupt = {}, old_int = {}, old_term = {};
  on_interrupt.sa_handler = OnInterrupt;
  sigaction(SIGINT, &on_interrupt, &old_int);
  sigaction(SIGTERM, &on_interrupt, &old_term);

  auto record = [&](CaseResult result, size_t index) {
    const bool bad = (result.outcome == CaseOutcome::kFailed ||
                      result.outcome == CaseOutcome::kErrored) &&
                     !result.info.set_apart;
    results[index] = std::move(result);
    ++done;
    if (options.on_result) options.on_result(*results[index], done, static_cast<int>(cases.size()));
    if (bad && options.fail_fast) stop = true;
  };

  while (true) {
    while (!stop && next < cases.size() && static_cast<int>(running.size()) < jobs) {
      auto child = StartChild(options, cases[next]);
      if (!child.ok()) {
        CaseResult result;
        result.info = cases[next];
        result.outcome = CaseOutcome::kErrored;
        result.message = std::string(child.status().message());
        record(std::move(result), next++);
        continue;
      }
      child->case_index = next++;
      running.push_back(std::move(*child));
    }
    if (running.empty()) break;

    std::vector<pollfd> fds;
    for (const Child& c : running) {
      if (c.out_fd >= 0) fds.push_back({c.out_fd, POLLIN, 0});
      if (c.err_fd >= 0) fds.push_back({c.err_fd, POLLIN, 0});
    }
    if (!fds.empty()) {
      poll(fds.data(), fds.size(), 50);
    } else {
      usleep(10000);
    }

    for (size_t i = 0; i < running.size();) {
      Child& c = running[i];
      ReadAvailable(&c.out_fd, &c.out);
      ReadAvailable(&c.err_fd, &c.err);
      int status = 0;
      pid_t waited = waitpid(c.pid, &status, WNOHANG);
      if (waited == 0 && options.timeout_seconds > 0 &&
          std::chrono::duration<double>(Clock::now() - c.start).count() > options.timeout_seconds) {
        c.timed_out = true;
      } else if (waited == 0 && HLOVM_CONFORMANCE_SANITIZED && options.memory_limit_mb > 0) {
        // Sanitizers reserve terabytes of address space for their shadow
        // memory, so RLIMIT_AS cannot hold the child; its resident memory
        // is watched instead.
        const int64_t resident = ResidentMiB(c.pid);
        if (resident > options.memory_limit_mb) c.killed_at_resident_mb = resident;
      }
      if (c.timed_out || c.killed_at_resident_mb > 0) {
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
        waited = waitpid(c.pid, &status, 0);
      }
      if (waited == c.pid) {
        // Wait for the pipes to close (grandchildren aside) briefly.
        CaseResult result = FinishChild(c, cases[c.case_index], status, options.timeout_seconds,
                                        options.memory_limit_mb);
        kill(-c.pid, SIGKILL);  // anything the case left behind in its group
        const size_t index = c.case_index;
        running.erase(running.begin() + i);
        record(std::move(result), index);
        continue;
      }
      ++i;
    }
    if (g_interrupted) stop = true;
    if (stop) {
      for (Child& c : running) {
        kill(-c.pid, SIGKILL);
        kill(c.pid, SIGKILL);
        int status;
        waitpid(c.pid, &status, 0);
        if (c.out_fd >= 0) close(c.out_fd);
        if (c.err_fd >= 0) close(c.err_fd);
      }
      running.clear();
      break;
    }
  }
  sigaction(SIGINT, &old_int, nullptr);
  sigaction(SIGTERM, &old_term, nullptr);
  if (g_interrupted) raise(SIGINT);
  std::vector<CaseResult> out;
  for (auto& r : results) {
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

//===--- Reports -----------------------------------------------------------===//

std::string FailureLine(const CaseResult& r) {
  std::string tag = r.outcome == CaseOutcome::kFailed    ? "FAILED"
                    : r.outcome == CaseOutcome::kErrored ? "ERRORED"
                    : r.outcome == CaseOutcome::kSkipped ? "SKIPPED"
                                                         : "PASSED";
  std::string line = absl::StrCat(tag, " ", OneLine(r.info.name));
  if (r.info.set_apart) absl::StrAppend(&line, " (set apart: ", OneLine(r.info.note), ")");
  if (!r.check) {
    absl::StrAppend(&line, ": ", OneLine(r.message));
    return line;
  }
  CheckFailure check = *r.check;
  // Exact checks carry no distance; give the absolute one when both values
  // are plain numbers.
  double actual, expected;
  if (check.abs_difference < 0 && check.ulp_difference < 0 &&
      absl::SimpleAtod(check.actual, &actual) && absl::SimpleAtod(check.expected, &expected) &&
      std::isfinite(actual) && std::isfinite(expected)) {
    check.abs_difference = std::fabs(actual - expected);
  }
  absl::StrAppend(&line, ": ", OneLine(FormatCheckFailure(check), 2000));
  return line;
}

namespace {
using Counts = OutcomeCounts;

std::string Row(std::string_view name, const Counts& c) {
  return absl::StrFormat("%-28s %6d %7d %7d %8d %8d\n", Sv(name), c.total(), c.passed, c.failed,
                         c.errored, c.skipped);
}
}  // namespace

std::string SummaryTable(const std::vector<CaseResult>& results) {
  std::map<std::string, Counts> main, apart;
  Counts main_total, apart_total;
  for (const CaseResult& r : results) {
    if (r.info.set_apart) {
      apart[r.info.family].Add(r.outcome);
      apart_total.Add(r.outcome);
    } else {
      main[r.info.family].Add(r.outcome);
      main_total.Add(r.outcome);
    }
  }
  const std::string header = absl::StrFormat("%-28s %6s %7s %7s %8s %8s\n", "family", "cases",
                                             "passed", "failed", "errored", "skipped");
  std::string out = header;
  for (const auto& [family, counts] : main) out += Row(family, counts);
  out += Row("total", main_total);
  if (apart_total.total() > 0) {
    out += "\nset apart (upstream RUN-DISABLED or fragile; failures here do not count):\n";
    out += header;
    for (const auto& [family, counts] : apart) out += Row(family, counts);
    out += Row("total set apart", apart_total);
  }
  Counts all = main_total;
  all.passed += apart_total.passed;
  all.failed += apart_total.failed;
  all.errored += apart_total.errored;
  all.skipped += apart_total.skipped;
  if (all.total() == 0) {
    absl::StrAppend(&out, "\nno cases ran\n");
    return out;
  }
  absl::StrAppend(&out, "\n",
                  absl::StrFormat("passed %d of %d cases (%.1f%%); %d failed, %d errored, %d skipped",
                                  all.passed, all.total(), 100.0 * all.passed / all.total(),
                                  all.failed, all.errored, all.skipped),
                  "\n");
  return out;
}

bool AllPassed(const std::vector<CaseResult>& results) {
  if (results.empty()) return false;
  for (const CaseResult& r : results) {
    if (r.info.set_apart) continue;
    if (r.outcome == CaseOutcome::kFailed || r.outcome == CaseOutcome::kErrored) return false;
  }
  return true;
}

double PassRate(const std::vector<CaseResult>& results) {
  if (results.empty()) return 0.0;
  int passed = 0;
  for (const CaseResult& r : results) passed += r.outcome == CaseOutcome::kPassed;
  return static_cast<double>(passed) / results.size();
}

int CompareMismatches(const std::vector<CaseResult>& results) {
  int n = 0;
  for (const CaseResult& r : results) n += r.compare_mismatch && !r.info.set_apart;
  return n;
}

bool RunSucceeded(const std::vector<CaseResult>& results, double min_pass_rate) {
  if (CompareMismatches(results) > 0) return false;
  if (min_pass_rate < 0) return AllPassed(results);
  return PassRate(results) + 1e-12 >= min_pass_rate;
}

namespace {
// Bytes that are not UTF-8 are written as the text \xNN in both reports
// (XML and JSON must be UTF-8).
std::string XmlEscape(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\n':
        out += "&#10;";
        break;
      default:
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) {
          out += ' ';
        } else if (static_cast<unsigned char>(c) >= 0x80) {
          if (const size_t n = Utf8SequenceLength(s, i); n > 0) {
            out.append(s.substr(i, n));
            i += n - 1;
          } else {
            out += absl::StrFormat("\\x%02x", static_cast<unsigned char>(c));
          }
        } else {
          out += c;
        }
    }
  }
  return out;
}

std::string JsonEscape(std::string_view s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\r':
        out += "\\r";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) {
          out += absl::StrFormat("\\u%04x", static_cast<int>(c));
        } else if (static_cast<unsigned char>(c) >= 0x80) {
          if (const size_t n = Utf8SequenceLength(s, i); n > 0) {
            out.append(s.substr(i, n));
            i += n - 1;
          } else {
            out += absl::StrFormat("\\\\x%02x", static_cast<unsigned char>(c));
          }
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double v) {
  if (std::isnan(v)) return "null";
  if (std::isinf(v)) return v > 0 ? "1e999" : "-1e999";
  return absl::StrFormat("%.17g", v);
}
}  // namespace

std::string JunitXml(const std::vector<CaseResult>& results) {
  std::map<std::string, std::vector<const CaseResult*>> by_family;
  Counts total;
  double total_time = 0;
  for (const CaseResult& r : results) {
    by_family[r.info.family].push_back(&r);
  }
  std::string suites;
  for (const auto& [family, list] : by_family) {
    Counts c;
    double time = 0;
    std::string cases;
    for (const CaseResult* r : list) {
      time += r->seconds;
      // Set-apart cases that do not pass are reported as skipped so that CI
      // systems do not count them as failures.
      CaseOutcome shown = r->outcome;
      if (r->info.set_apart && shown != CaseOutcome::kPassed) shown = CaseOutcome::kSkipped;
      c.Add(shown);
      absl::StrAppend(&cases, "    <testcase classname=\"", XmlEscape(family), "\" name=\"",
                      XmlEscape(r->info.name), "\" file=\"", XmlEscape(r->info.path), "\" time=\"",
                      absl::StrFormat("%.3f", r->seconds), "\"");
      const std::string message = XmlEscape(FailureLine(*r));
      switch (shown) {
        case CaseOutcome::kPassed:
          cases += "/>\n";
          break;
        case CaseOutcome::kFailed:
          absl::StrAppend(&cases, ">\n      <failure message=\"", message, "\">",
                          XmlEscape(r->root.empty() ? r->message : r->message + "\nROOT: " + r->root),
                          "</failure>\n    </testcase>\n");
          break;
        case CaseOutcome::kErrored:
          absl::StrAppend(&cases, ">\n      <error message=\"", message, "\"/>\n    </testcase>\n");
          break;
        case CaseOutcome::kSkipped:
          absl::StrAppend(&cases, ">\n      <skipped message=\"", message, "\"/>\n    </testcase>\n");
          break;
      }
    }
    total.passed += c.passed;
    total.failed += c.failed;
    total.errored += c.errored;
    total.skipped += c.skipped;
    total_time += time;
    absl::StrAppend(&suites, "  <testsuite name=\"", XmlEscape(family), "\" tests=\"", c.total(),
                    "\" failures=\"", c.failed, "\" errors=\"", c.errored, "\" skipped=\"",
                    c.skipped, "\" time=\"", absl::StrFormat("%.3f", time), "\">\n", cases,
                    "  </testsuite>\n");
  }
  return absl::StrCat("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n",
                      "<testsuites name=\"hlovm conformance\" tests=\"", total.total(),
                      "\" failures=\"", total.failed, "\" errors=\"", total.errored,
                      "\" skipped=\"", total.skipped, "\" time=\"",
                      absl::StrFormat("%.3f", total_time), "\">\n", suites, "</testsuites>\n");
}

std::string ResultsJson(const std::vector<CaseResult>& results) {
  Counts all;
  for (const CaseResult& r : results) all.Add(r.outcome);
  std::string out = absl::StrCat("{\n  \"summary\": {\"cases\": ", all.total(),
                                 ", \"passed\": ", all.passed, ", \"failed\": ", all.failed,
                                 ", \"errored\": ", all.errored, ", \"skipped\": ", all.skipped,
                                 ", \"pass_rate\": ", JsonNumber(PassRate(results)), "},\n  \"cases\": [");
  bool first = true;
  for (const CaseResult& r : results) {
    absl::StrAppend(&out, first ? "\n" : ",\n", "    {\"name\": ", JsonEscape(r.info.name),
                    ", \"path\": ", JsonEscape(r.info.path), ", \"family\": ",
                    JsonEscape(r.info.family), ", \"outcome\": ",
                    JsonEscape(CaseOutcomeName(r.outcome)), ", \"set_apart\": ",
                    r.info.set_apart ? "true" : "false", ", \"note\": ", JsonEscape(r.info.note),
                    ", \"seconds\": ", JsonNumber(r.seconds), ", \"message\": ",
                    JsonEscape(r.message));
    if (r.check) {
      const CheckFailure& f = *r.check;
      std::string index;
      for (size_t i = 0; i < f.index.size(); ++i) absl::StrAppend(&index, i ? ", " : "", f.index[i]);
      absl::StrAppend(&out, ", \"check\": {\"name\": ", JsonEscape(f.check), ", \"kind\": ",
                      JsonEscape(f.kind), ", \"index\": [", index, "], \"actual\": ",
                      JsonEscape(f.actual), ", \"expected\": ", JsonEscape(f.expected),
                      ", \"ulp_difference\": ", JsonNumber(f.ulp_difference),
                      ", \"abs_difference\": ", JsonNumber(f.abs_difference),
                      ", \"allowed\": ", JsonEscape(f.allowed), ", \"mismatches\": ",
                      f.mismatch_count, ", \"elements\": ", f.element_count, "}");
    }
    out += "}";
    first = false;
  }
  out += "\n  ]\n}\n";
  return out;
}

}  // namespace hlovm
