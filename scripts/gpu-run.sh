#!/usr/bin/env bash
# Runs on the GPU machine (after scripts/gpu-prepare.sh here; docs/gpu-machine.md):
#   bash scripts/gpu-run.sh <step> [<step> ...]
# steps: partitionwhole partition2w partition1w (need gpu-prepare.sh's set `queue`) info parity raster bigsplat loss appearance sweep raster10m select10m statue statue-same mic7k mic7k-same mic30k micfast micfast-budget micfast-fine micfast-dense micfast-shrest statuefast statuefast-budget bunny7k bunny7k-ray bunny7k-expected bunny7k-geo bunny7k-geo-median bunny7k-nocarve bunny7k-views0 bunny7k-views1 bunny7k-views3 bunny7k-seen1 bunny7k-seen025 run-NAME sfm-NAME cli-NAME; `step:seconds` overrides its limit
# Everything lands in $OUT (JSON results + run.log). Each step has its own time limit so one
# slow step cannot eat the whole call.
set -uo pipefail
source .gpu/env.sh >/dev/null
# libvips travels xz-compressed (scripts/gpu-prepare.sh); env.sh unpacks only *.node.xz.
find node_modules/@img -name 'libvips-cpp.so*.xz' -exec xz -df {} \; 2>/dev/null
# redis-server for the partition steps (gpu-prepare.sh's set `queue`): unpacked, its wrapper first on PATH
if [ -d .gpu-data/redis ]; then
  find .gpu-data/redis -name '*.xz' -exec xz -df {} \; 2>/dev/null
  export PATH="$PWD/.gpu-data/redis:$PATH"
fi
: "${OUT:=/tmp/out}"
mkdir -p "$OUT"
cli="node out/cli/index.mjs --no-gui"
log="$OUT/run.log"
run() { # name, limit seconds, command...
  local name=$1 limit=$2; shift 2
  local t0=$(date +%s%N)
  echo "== $name" | tee -a "$log"
  timeout "$limit" "$@" >>"$log" 2>&1
  local rc=$?
  echo "== $name: exit $rc in $(( ($(date +%s%N) - t0) / 1000000 )) ms" | tee -a "$log"
}
# The partition steps' scene (docs/scale.md): a synthetic city rendered here by out/gpu/partition-city.mjs on
# first use, kept for the steps after; PARTITION_CITY adds its options (a dry run: small and few steps).
city=/tmp/argonaut-city
make_city() {
  [ -f "$city/city.argo" ] || run partition-city 180 sh -c "node out/gpu/partition-city.mjs --out $city ${PARTITION_CITY:-} > $OUT/partition-city.json"
}
for arg in "$@"; do
  step=${arg%%:*}
  limit=${arg#*:}
  [ "$limit" = "$arg" ] && limit=""
  case "$step" in
    # the same scene trained whole, then as partition-001's blocks through the queue (a redis-server of the
    # bench's own, W worker processes sharing the GPU, the coordinator): total and block times, peak GPU
    # memory per worker, seams, merged against whole test PSNR (bench/partition-queue.mjs)
    partitionwhole) make_city; run "$step" ${limit:-300} node bench/partition-queue.mjs --project $city/city.argo --whole --out "$OUT/partition-whole.json" ;;
    partition2w) make_city; run "$step" ${limit:-400} node bench/partition-queue.mjs --project $city/city.argo --partition partition-001 --workers 2 --out "$OUT/partition-2w.json" ;;
    partition1w) make_city; run "$step" ${limit:-500} node bench/partition-queue.mjs --project $city/city.argo --partition partition-001 --workers 1 --out "$OUT/partition-1w.json" ;;
    info) run info ${limit:-60} sh -c "$cli info --json > $OUT/info.json" ;;
    parity) run parity ${limit:-300} node out/gpu/runner.mjs --out "$OUT/parity.json" ;;
    raster) run raster ${limit:-240} $cli bench raster --data .gpu-data --out "$OUT/raster.json" ;;
    sweep) run sweep ${limit:-300} $cli bench raster --data .gpu-data --sweep --out "$OUT/raster-sweep.json" ;;
    bigsplat) run bigsplat ${limit:-240} $cli bench raster --data .gpu-data --load bigsplat --out "$OUT/raster-bigsplat.json" ;;
    loss) run loss ${limit:-120} $cli bench loss --width 1920 --height 1440 --out "$OUT/loss.json" ;;
    appearance) run appearance ${limit:-120} $cli bench appearance --width 2000 --height 1324 --out "$OUT/appearance.json" ;;
    raster10m) run raster10m ${limit:-300} $cli bench raster --data .gpu-data --splats 10000000 --out "$OUT/raster-10m.json" ;;
    select10m) run select10m ${limit:-300} $cli bench select --splats 10000000 --clean --out "$OUT/select-10m.json" ;;
    statue) run statue ${limit:-420} $cli bench train .gpu-data/colmap_statue --steps 7000 --out "$OUT/train-statue-7k-$(date +%s).json" ;;
    statue-same) run statue-same ${limit:-420} $cli bench train .gpu-data/colmap_statue --steps 7000 --ssim-padding same --out "$OUT/train-statue-7k-same-$(date +%s).json" ;;
    mic7k-same) run mic7k-same ${limit:-300} $cli bench train .gpu-data/nerf_synthetic_mic --steps 7000 --ssim-padding same --out "$OUT/train-mic-7k-same-$(date +%s).json" ;;
    mic7k) run mic7k ${limit:-300} $cli bench train .gpu-data/nerf_synthetic_mic --steps 7000 --out "$OUT/train-mic-7k-$(date +%s).json" ;;
    # --preset fast (docs/training.md): the preset as it is, then each technique switched on or off
    micfast) run micfast ${limit:-300} $cli bench train .gpu-data/nerf_synthetic_mic --preset fast --out "$OUT/train-mic-fast-$(date +%s).json" ;;
    micfast-budget) run micfast-budget ${limit:-300} $cli bench train .gpu-data/nerf_synthetic_mic --preset fast --densify-budget 300000 --out "$OUT/train-mic-fast-budget300k-$(date +%s).json" ;;
    micfast-fine) run micfast-fine ${limit:-300} $cli bench train .gpu-data/nerf_synthetic_mic --preset fast --coarse-factor 1 --out "$OUT/train-mic-fast-fine-$(date +%s).json" ;;
    micfast-dense) run micfast-dense ${limit:-300} $cli bench train .gpu-data/nerf_synthetic_mic --preset fast --sparse-adam false --out "$OUT/train-mic-fast-dense-adam-$(date +%s).json" ;;
    micfast-shrest) run micfast-shrest ${limit:-300} $cli bench train .gpu-data/nerf_synthetic_mic --preset fast --sh-rest-every 4 --out "$OUT/train-mic-fast-shrest4-$(date +%s).json" ;;
    statuefast) run statuefast ${limit:-300} $cli bench train .gpu-data/colmap_statue --preset fast --out "$OUT/train-statue-fast-$(date +%s).json" ;;
    statuefast-budget) run statuefast-budget ${limit:-300} $cli bench train .gpu-data/colmap_statue --preset fast --steps 7000 --densify-budget 100000 --out "$OUT/train-statue-fast7k-budget100k-$(date +%s).json" ;;
    mic30k) run mic30k ${limit:-580} $cli bench train .gpu-data/nerf_synthetic_mic --steps 30000 --out "$OUT/train-mic-30k-$(date +%s).json" ;;
    bunny7k) run bunny7k ${limit:-480} $cli bench mesh .gpu-data/bunny --steps 7000 --resolution 512 --target-triangles 300000 \
      --metrics .gpu-data/tools/mesh-metrics.mjs --mesh-out "$OUT/bunny-mesh.glb" --out "$OUT/mesh-bunny-7k-$(date +%s).json" ;;
    # bench mesh's protocol trains with --geometry (bunny7k is the criterion); variants: bunny7k-ray and
    # bunny7k-expected (default training, that depth), bunny7k-geo (surface depth), bunny7k-geo-median, bunny7k-nocarve
    # (the protocol without free-space carving, the support clean-up and the visibility pass: the before of docs/mesh.md);
    # the visibility pass's neighbours: bunny7k-views0 (off), -views1, -views3 (--min-views), -seen1, -seen025 (--seen-depth)
    bunny7k-*) variant=${step#bunny7k-}; extra=()
      case "$variant" in ray) extra=(--geometry=false --mesh-depth ray) ;; expected) extra=(--geometry=false --mesh-depth expected) ;; geo) extra=(--geometry --mesh-depth surface) ;; geo-median) extra=(--geometry --mesh-depth median) ;;
        nocarve) extra=(--carve-votes 0 --image-alpha=false --min-support 0 --min-views 0) ;;
        views0) extra=(--min-views 0) ;; views1) extra=(--min-views 1) ;; views3) extra=(--min-views 3) ;; seen1) extra=(--seen-depth 1) ;; seen025) extra=(--seen-depth 0.25) ;; esac
      run "$step" ${limit:-480} $cli bench mesh .gpu-data/bunny --steps 7000 --resolution 512 --target-triangles 300000 "${extra[@]}" \
        --metrics .gpu-data/tools/mesh-metrics.mjs --mesh-out "$OUT/bunny-mesh-$variant.glb" --out "$OUT/mesh-bunny-7k-$variant-$(date +%s).json" ;;
    # run-NAME: `bench train` with the arguments in .gpu-data/runs/NAME (one line: dataset folder and
    # options), written here before gpu-prepare.sh; for experiments that need no step of their own
    run-*) name=${step#run-}; read -r -a extra < ".gpu-data/runs/$name"
      run "$step" ${limit:-580} $cli bench train "${extra[@]}" --out "$OUT/train-$name.json" ;;
    # sfm-NAME: `bench sfm` with the arguments in .gpu-data/runs/sfm-NAME (a folder of images, options)
    sfm-*) read -r -a extra < ".gpu-data/runs/$step"
      run "$step" ${limit:-300} $cli bench sfm "${extra[@]}" --out "$OUT/$step.json" ;;
    # cli-NAME: any CLI command with the arguments in .gpu-data/runs/cli-NAME (one line; `$OUT` in it
    # is the results folder, e.g. `bench ba --images 150 --out $OUT/ba.json` or a capture's --out)
    cli-*) read -r -a extra < <(sed "s#\$OUT#$OUT#g" ".gpu-data/runs/$step")
      run "$step" ${limit:-300} $cli "${extra[@]}" ;;
    *) echo "gpu-run: unknown step $step" | tee -a "$log" ;;
  esac
done
# The device tool brings back a limited number of files (8 came back of 9 once): with more than
# six results, they travel as one archive (results.tgz; unpack with tar -xzf).
n=$(find "$OUT" -maxdepth 1 -type f ! -name run.log | wc -l)
if [ "$n" -gt 6 ]; then
  (cd "$OUT" && find . -maxdepth 1 -type f ! -name run.log ! -name results.tgz -printf '%P\n' | tar -czf results.tgz -T - && find . -maxdepth 1 -type f ! -name run.log ! -name results.tgz -delete)
  echo "gpu-run: $n result files packed into results.tgz" | tee -a "$log"
fi
tail -n 60 "$log"
