#include "vm/mpi_run.h"

#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace hlovm {
namespace {

// The CPUs this process may run on.
std::vector<int> AllowedCpus() {
  cpu_set_t mask;
  CPU_ZERO(&mask);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof(mask), &mask) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &mask)) cpus.push_back(c);
  }
  return cpus;
}

// Runs `body` in a child process (BindToLocalCores changes the affinity of
// the process that calls it) with the launcher's variables set as given;
// returns what the child's body returned.
bool InChild(int local_size, int local_rank, const char* policy,
             const std::function<bool()>& body) {
  const pid_t pid = fork();
  if (pid == 0) {
    setenv("OMPI_COMM_WORLD_LOCAL_SIZE", absl::StrCat(local_size).c_str(), 1);
    setenv("OMPI_COMM_WORLD_LOCAL_RANK", absl::StrCat(local_rank).c_str(), 1);
    unsetenv("MPI_LOCALNRANKS");
    unsetenv("MPI_LOCALRANKID");
    if (policy != nullptr) {
      setenv("OMPI_MCA_hwloc_base_binding_policy", policy, 1);
    } else {
      unsetenv("OMPI_MCA_hwloc_base_binding_policy");
    }
    _exit(body() ? 0 : 1);
  }
  int status = 0;
  if (pid < 0 || waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

class BindToLocalCoresTest : public testing::Test {
 protected:
  void SetUp() override {
    cpus_ = AllowedCpus();
    // Where this test itself runs bound to part of the machine, the
    // function leaves every process as it is (checked below) and the
    // shares cannot be seen.
    if (static_cast<long>(cpus_.size()) < sysconf(_SC_NPROCESSORS_ONLN)) {
      GTEST_SKIP() << "the test process is bound to " << cpus_.size() << " of "
                   << sysconf(_SC_NPROCESSORS_ONLN) << " CPUs";
    }
  }
  std::vector<int> cpus_;
};

TEST_F(BindToLocalCoresTest, MoreProcessesThanCoresTakeOneCoreEach) {
  const int n = static_cast<int>(cpus_.size());
  for (int rank = 0; rank < 2 * n; ++rank) {
    const int cpu = cpus_[rank % n];
    EXPECT_TRUE(InChild(2 * n, rank, nullptr,
                        [&] {
                          return BindToLocalCores() == absl::StrCat(cpu) &&
                                 AllowedCpus() == std::vector<int>{cpu};
                        }))
        << "local rank " << rank << " of " << 2 * n;
  }
}

TEST_F(BindToLocalCoresTest, FewerProcessesThanCoresShareThemInBlocks) {
  const int n = static_cast<int>(cpus_.size());
  if (n < 2) GTEST_SKIP() << "one CPU";
  // Two processes: the first takes the first half of the CPUs (rounded
  // down), the second the rest.
  const std::vector<int> first(cpus_.begin(), cpus_.begin() + n / 2);
  const std::vector<int> second(cpus_.begin() + n / 2, cpus_.end());
  EXPECT_TRUE(InChild(2, 0, nullptr, [&] {
    BindToLocalCores();
    return AllowedCpus() == first;
  }));
  EXPECT_TRUE(InChild(2, 1, nullptr, [&] {
    BindToLocalCores();
    return AllowedCpus() == second;
  }));
}

TEST_F(BindToLocalCoresTest, LeavesAloneWhatTheLauncherOrTheUserDecided) {
  // One process on the machine.
  EXPECT_TRUE(
      InChild(1, 0, nullptr, [&] { return BindToLocalCores().empty() && AllowedCpus() == cpus_; }));
  // The user chose a binding, none included.
  EXPECT_TRUE(
      InChild(4, 1, "none", [&] { return BindToLocalCores().empty() && AllowedCpus() == cpus_; }));
  // The launcher bound the process already.
  if (cpus_.size() >= 2) {
    EXPECT_TRUE(InChild(4, 1, nullptr, [&] {
      cpu_set_t mask;
      CPU_ZERO(&mask);
      CPU_SET(cpus_[0], &mask);
      if (sched_setaffinity(0, sizeof(mask), &mask) != 0) return false;
      return BindToLocalCores().empty() && AllowedCpus() == std::vector<int>{cpus_[0]};
    }));
  }
}

}  // namespace
}  // namespace hlovm
