#!/usr/bin/env python3
"""Runs one example the way its header says and checks the printed result.

An example's header holds the command (`//   hlovm run examples/X.hlo ARGS`,
continued with a trailing backslash) and the expected result
(`//   => VALUE`, computed independently: by hand or with NumPy). The numbers
printed must match the expected ones in order (relative tolerance 1e-5, and
the same count). An example without both lines must just run with
`--random`. Usage: check_example.py HLOVM FILE.hlo
"""
import re
import shlex
import subprocess
import sys

NUMBER = re.compile(r'(?<![\w.])[-+]?(?:\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?|inf|nan)')


def header(path):
    command, expected, pending = None, None, None
    for line in open(path):
        if not line.startswith('//'):
            break
        text = line[2:].strip()
        if pending is not None:
            pending += ' ' + text.rstrip('\\').strip()
            if not text.endswith('\\'):
                command, pending = pending, None
        elif text.startswith('hlovm run '):
            if text.endswith('\\'):
                pending = text.rstrip('\\').strip()
            else:
                command = text
        elif text.startswith('=> '):
            expected = text[3:].split('  (')[0]  # drop a trailing remark
    return command, expected


def numbers(text):
    # Index comments (/*i0=0*/), replica prefixes ("replicas 0-3:"), shapes
    # (f32[2,3]) and element types are not values.
    text = re.sub(r'/\*.*?\*/', ' ', text)
    text = re.sub(r'(?m)^replicas? [\d, -]+:', ' ', text)
    text = re.sub(r'\b[a-z]+\d*[a-z0-9]*\[[\d,]*\]', ' ', text)
    return [float(x) for x in NUMBER.findall(text)]


def main():
    hlovm, path = sys.argv[1], sys.argv[2]
    command, expected = header(path)
    if command is None or expected is None or '--random' in command:
        args = [hlovm, 'run', path, '--random=1']
        if command and '--per-replica' not in command:
            args = [hlovm] + shlex.split(command)[1:]
        return subprocess.run(args, stdout=subprocess.DEVNULL).returncode
    args = shlex.split(command)[1:]
    out = subprocess.run([hlovm] + args, capture_output=True, text=True)
    if out.returncode != 0:
        print(f'{path}: exit {out.returncode}\n{out.stderr}')
        return 1
    got, want = numbers(out.stdout), numbers(expected)
    if len(got) != len(want):
        print(f'{path}: {len(got)} numbers printed, {len(want)} expected\n{out.stdout}')
        return 1
    for i, (g, w) in enumerate(zip(got, want)):
        if not (g == w or abs(g - w) <= 1e-5 * max(1.0, abs(w))):
            print(f'{path}: value {i} is {g}, expected {w}\n{out.stdout}')
            return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
