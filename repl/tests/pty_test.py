#!/usr/bin/env python3
"""The REPL on a pseudo-terminal: tab completion, history (within a session
and across sessions), multi-line input, Ctrl-C stopping a `while` that never
ends (the time from Ctrl-C to the prompt is printed and must stay under a
generous bound), also on several replicas, debugger command latency, Ctrl-C
twice / Ctrl-D to leave, and `hlovm run` / `hlovm bench` on a terminal: their
progress line and SIGINT (where the run was, exit 130).

Usage: pty_test.py HLOVM [EXAMPLES_DIR]
"""
import os
import pty
import re
import select
import signal
import sys
import tempfile
import time

HLOVM = sys.argv[1]
EXAMPLES = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..", "..", "examples")
PROMPT = "hlo> "
TIMEOUT = 60.0  # generous: the machine may be loaded


class Repl:
    def __init__(self, home, args=(), cwd=None):
        env = dict(os.environ, HOME=home, XDG_STATE_HOME=os.path.join(home, "state"), TERM="xterm")
        env.pop("EDITRC", None)
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            if cwd:
                os.chdir(cwd)
            os.execve(HLOVM, [HLOVM, *args], env)
        self.out = ""

    def read_until(self, pattern, timeout=TIMEOUT):
        """Reads until `pattern` (a regex) appears in the output since the mark."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        while True:
            m = regex.search(self.out)
            if m:
                text = self.out[: m.end()]
                self.out = self.out[m.end():]
                return text
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {pattern!r}; output so far:\n{self.out}")
            r, _, _ = select.select([self.fd], [], [], min(left, 0.05))
            if r:
                try:
                    data = os.read(self.fd, 65536)
                except OSError:
                    data = b""
                if not data:
                    raise AssertionError(f"hlovm exited waiting for {pattern!r}; output:\n{self.out}")
                self.out += data.decode("utf-8", "replace")

    def send(self, text):
        os.write(self.fd, text.encode())

    def command(self, line, expect=PROMPT):
        self.send(line + "\r")
        return self.read_until(re.escape(expect) if expect == PROMPT else expect)

    def wait_exit(self):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                return os.waitstatus_to_exitcode(status)
            try:
                r, _, _ = select.select([self.fd], [], [], 0.05)
                if r:
                    os.read(self.fd, 65536)
            except OSError:
                pass
        os.kill(self.pid, signal.SIGKILL)
        raise AssertionError("hlovm did not exit")


def main():
    failures = []

    def check(condition, what):
        print(("ok   " if condition else "FAIL ") + what)
        if not condition:
            failures.append(what)

    with tempfile.TemporaryDirectory() as home:
        repl = Repl(home)
        repl.read_until(re.escape(PROMPT))

        # Tab completion of an opcode (the common prefix of exponential and
        # exponential-minus-one), then of a bound name and a command.
        repl.command("x = f32[2] constant({1, 2})")
        repl.send("y = exponenti\t")
        time.sleep(0.3)
        out = repl.command("(x)")
        check("y = f32[2] {2.71828175, 7.38905621}" in out, "tab completes 'exponenti' to 'exponential'")
        repl.command("longname = f32[2] constant({3, 4})")
        repl.send("neg\t")
        time.sleep(0.3)
        repl.send("(lon\t")
        time.sleep(0.3)
        repl.send(")\r")
        out = repl.read_until(re.escape(PROMPT))
        check("f32[2] {-3, -4}" in out, "tab completes an opcode and a bound name")
        repl.send(":ty\t")
        time.sleep(0.3)
        repl.send("x\r")
        out = repl.read_until(re.escape(PROMPT))
        check("x : f32[2]" in out, "tab completes a : command")

        # History recall with Ctrl-P (previous line).
        repl.send("\x10\r")
        out = repl.read_until(re.escape(PROMPT))
        check("x : f32[2]" in out, "Ctrl-P recalls the previous input")

        # A command's arguments complete by its kind: names for :type, paths
        # for :load; :kill completes like every other command.
        repl.send(":type lon\t")
        time.sleep(0.3)
        repl.send("\r")
        out = repl.read_until(re.escape(PROMPT))
        check("longname : f32[2]" in out, "tab completes the argument of :type")
        repl.send(f":load {os.path.join(EXAMPLES, 'relu_aff')}\t")
        time.sleep(0.3)
        repl.send("\r")
        out = repl.read_until(re.escape(PROMPT))
        check("loaded" in out and "error" not in out, "tab completes a path after :load")
        repl.send(":ki\t")
        time.sleep(0.3)
        repl.send("\r")
        out = repl.read_until(re.escape(PROMPT))
        check("no program is running" in out, "tab completes :kill")

        # Multi-line input: a computation, then a while loop that never ends.
        repl.send("cond {\r")
        repl.read_until(re.escape("...> "))
        repl.send("  p = s32[] parameter(0)\r  ROOT t = pred[] constant(true)\r}\r")
        out = repl.read_until(re.escape(PROMPT))
        check("defined %cond" in out, "multi-line computation with a continuation prompt")
        repl.command("body {\r  p = s32[] parameter(0)\r  one = s32[] constant(1)\r  ROOT n = s32[] add(p, one)\r}")
        repl.send("w = while(s32[] constant(0)), condition=cond, body=body\r")
        time.sleep(1.0)  # let it spin
        start = time.monotonic()
        repl.send("\x03")
        out = repl.read_until(re.escape(PROMPT))
        elapsed = time.monotonic() - start
        check("interrupted" in out, "Ctrl-C stops an endless while")
        print(f"Ctrl-C to prompt: {elapsed * 1000:.1f} ms")
        check(elapsed < 5.0, "the prompt is back within 5 s even on a loaded machine (0.2 s target)")
        out = repl.command("x")
        check("f32[2] {1, 2}" in out, "the session is intact after Ctrl-C")
        # The same with several replicas: every instance stops.
        repl.command(":replicas 2")
        repl.send("w = while(s32[] constant(0)), condition=cond, body=body\r")
        time.sleep(1.0)
        repl.send("\x03")
        out = repl.read_until(re.escape(PROMPT))
        check("interrupted" in out, "Ctrl-C stops an endless while on 2 replicas")
        out = repl.command("x")
        check("replicas 0-1" not in out and "f32[2] {1, 2}" in out, "bound values intact")
        repl.command(":replicas 1")

        # Debugger latency on an example module.
        repl.command(f":load {os.path.join(EXAMPLES, 'newton_loop.hlo')}")
        repl.command(":break body y1_b")
        out = repl.command(":run f32[4] {2, 9, 0.25, 1e6}", expect="\\(debug\\) hlo> ")
        check("breakpoint: before %y1_b" in out, "a breakpoint stops the program")
        latencies = {}
        for cmd in [":step", ":print trip_b", ":where", ":next", ":continue", ":finish"]:
            t0 = time.monotonic()
            out = repl.command(cmd, expect="hlo> ")
            latencies[cmd] = (time.monotonic() - t0) * 1000
        check("iteration" in out or "%" in out, "debugger commands answer")
        print("debugger latency (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in latencies.items()))
        repl.command(":delete")
        repl.send(":continue\r")
        out = repl.read_until(re.escape(PROMPT))
        check("program finished" in out, "the debugged program finishes")

        # A relative path completes too.
        repl.send(":load " + os.path.relpath(os.path.join(EXAMPLES, "sc"), os.getcwd()) + "\t")
        time.sleep(0.3)
        repl.send("\r")
        out = repl.read_until(re.escape(PROMPT))
        check("an_loop.hlo" in out and "loaded 3 computations" in out and "error" not in out,
              "tab completes a relative path after :load")

        out = repl.command(":help tanh")
        check("hyperbolic tangent" in out, ":help OPCODE")
        # Ctrl-C twice at an empty prompt leaves.
        repl.send("\x03")
        repl.read_until("Ctrl-C again")
        repl.send("\x03")
        check(repl.wait_exit() == 0, "a second Ctrl-C at an empty prompt exits")

        # The history survives the session.
        history = os.path.join(home, "state", "hlovm", "history")
        check(os.path.exists(history), "history saved in $XDG_STATE_HOME/hlovm/history")
        repl = Repl(home)
        repl.read_until(re.escape(PROMPT))
        repl.send("\x10\r")
        out = repl.read_until(re.escape(PROMPT))
        check("hyperbolic tangent" in out, "history from the last session is recalled")
        repl.send("\x04")  # Ctrl-D
        check(repl.wait_exit() == 0, "Ctrl-D exits")

        # `hlovm run` on a terminal: after ~2 s a progress line on stderr
        # says where the run is; Ctrl-C (SIGINT) prints where it was and
        # exits 130.
        forever = os.path.join(home, "forever.hlo")
        with open(forever, "w") as f:
            f.write("HloModule forever\n\ncond {\n  p = s32[] parameter(0)\n"
                    "  ROOT t = pred[] constant(true)\n}\n\nbody {\n  p = s32[] parameter(0)\n"
                    "  one = s32[] constant(1)\n  ROOT n = s32[] add(p, one)\n}\n\n"
                    "ENTRY main {\n  z = s32[] constant(0)\n"
                    "  ROOT w = s32[] while(z), condition=cond, body=body\n}\n")
        for command in ("run", "bench"):
            run = Repl(home, args=(command, forever))
            out = run.read_until(r"running \d+ s, at [^\r\n]*iteration \d+", timeout=TIMEOUT)
            check("in while %w (line 16) iteration" in out, f"hlovm {command} shows progress")
            os.kill(run.pid, signal.SIGINT)
            out = run.read_until(r"interrupted after [^\n]*\n")
            check(re.search(r"interrupted after [0-9.]+ s at %\w+ \(line \d+\), in while %w "
                            r"\(line 16\) iteration \d+", out) is not None,
                  f"SIGINT during hlovm {command} says where the run was")
            check(run.wait_exit() == 130, f"hlovm {command} exits 130 on SIGINT")

    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
