set -u
export CPUML_BENCH_SHAPES=1x4096x11008,1x11008x4096,1x4096x14336,16x4096x4096,128x4096x4096,512x4096x4096,128x4096x14336
export CPUML_BENCH_TYPES=u8s8,s8u4 CPUML_BENCH_MODELS=llama3_8b CPUML_ORT_FAMILIES=nbits,nbits_model CPUML_DEVICE_PEERS=bench/device_dynamic_peers.py
bash scripts/device_conformance_and_bench.sh .device $OUT 1 '^(dqmatmul|model)/cpuml/' > $OUT/full.txt 2>&1
echo rc=$?
grep -E "conformance:" $OUT/full.txt
tail -70 $OUT/full.txt
