#!/bin/sh
# Runs the whole-cluster benchmark programs of the remote data path and the control path, each
# against the machine's own limit measured in the same run, and keeps their output.
#   benchmarks/run-cluster-benchmarks.sh [OUT_DIR]      (default: benchmarks/target/cluster-results)
# Build first: ./mvnw -q -pl benchmarks -am package -DskipTests
set -eu
cd "$(dirname "$0")/.."
out=${1:-benchmarks/target/cluster-results}
mkdir -p "$out"
JAVA="$(bin/find-jdk)/bin/java"
run() { name=$1; shift
  echo "== $name: $*" | tee "$out/$name.txt"
  "$JAVA" --enable-native-access=ALL-UNNAMED -cp benchmarks/target/benchmarks.jar "$@" 2>/dev/null \
    | grep -v '^WARNING' | tee -a "$out/$name.txt"
  uptime | tee -a "$out/$name.txt"
}
run remote-single io.softcmi.benchmarks.cluster.RemoteAccessBenchmark 50000 256
run control io.softcmi.benchmarks.cluster.ControlPathBenchmark 20000
run fan-in io.softcmi.benchmarks.cluster.FanInBenchmark --contexts 1,2,4,8,16,32,64 --procs 1,4 --seconds 2 \
    --csv "$out/fan-in.csv" --png "$out/fan-in.png"
run threads io.softcmi.benchmarks.cluster.FanInBenchmark --threads --contexts 1,4,16,64 --seconds 2
run busy io.softcmi.benchmarks.cluster.FanInBenchmark --busy --seconds 3
run notification io.softcmi.benchmarks.cluster.NotificationBenchmark
