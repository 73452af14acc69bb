#!/usr/bin/env bash
# Builds catenary and runs the RANCF paper's flexible five-link pendulum (E = 21 MPa, 4 s).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
./build/catenary run cases/rancf_pendulum_flexible.json --out results/rancf_pendulum_flexible
