#!/bin/sh
# The benchmark-only dependencies of bench/peers (PyTorch and torchvision as
# Debian packages, with NumPy); hlovm itself does not need them.
set -e
SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO=sudo
$SUDO apt-get install -y --no-install-recommends python3-numpy python3-torch python3-torchvision
