#!/usr/bin/env bash
# Prepares what a run on the GPU machine needs (docs/gpu-machine.md), all git-ignored:
#   out/      the bundles (CLI, engine, GPU parity runner; no source maps)
#   .gpu/     Node, the Vulkan loader and webgpu's dawn.node (../shared/gpu/stage.sh); with a data set
#             that has images (statue, mic, bunny), sharp and its linux-x64 addon and libvips too,
#             xz-compressed (about 6.7 MB): env.sh unpacks *.node.xz, gpu-run.sh the libvips .so.xz
#   .gpu-data the data the run reads, chosen by the sets named on the command line:
#             raster (the fixed load's npz), statue, mic (100 train + test r_0, r_4, ..., r_196),
#             bunny (render-views.mjs: the Stanford bunny, 100 + 20 views at 400 px, gt_mesh.ply, and
#             the mesh-metrics tool that scores it), dir=PATH (a posed dataset folder made here),
#             queue (redis-server and the libraries a bare image lacks, scripts/stage-redis.sh, xz-compressed:
#             gpu-run.sh unpacks it; for the partition steps, whose city scene the GPU machine renders itself)
# `bench train` experiments: write .gpu-data/runs/NAME (arguments) after this, run step run-NAME.
# The device tool's carry list is then: .gpu out .gpu-data (64 MiB in all, checked here).
set -euo pipefail
cd "$(dirname "$0")/.."
data=../shared/data
node scripts/build.mjs --gpu >/dev/null
find out -name '*.map' -delete
rm -rf out/renderer out/main out/preload out/host
[ -d .gpu ] || bash ../shared/gpu/stage.sh >/dev/null
rm -rf .gpu-data && mkdir -p .gpu-data
for set in "$@"; do
  case "$set" in
    raster) mkdir -p .gpu-data/gsplat_test_garden && cp "$data/gsplat_test_garden/test_garden.npz" .gpu-data/gsplat_test_garden/ ;;
    statue) cp -r "$data/colmap_statue" .gpu-data/ && rm -rf .gpu-data/colmap_statue/.argonaut-cache ;;
    mic)
      # 100 train + test r_0, r_4, ..., r_196, composited over white by our own loader and saved as
      # RGB PNG: the same pixels the trainer computes from the RGBA originals, in fewer bytes.
      npx esbuild scripts/precomposite.ts --bundle --platform=node --format=esm --log-level=error --external:sharp --external:webgpu \
        --banner:js="import { createRequire as __c } from 'node:module'; const require = __c(import.meta.url);" --outfile=out/tmp/precomposite.mjs
      # (bundled inside the checkout: `import 'sharp'` resolves from node_modules here)
      node out/tmp/precomposite.mjs "$data/nerf_synthetic_mic" .gpu-data/nerf_synthetic_mic 1 4 && rm -rf out/tmp ;;
    bunny)
      # ~12 MB: the views are deterministic, rendered here (10-60 s) rather than on the device's time
      node ../shared/tools/render-views.mjs "$data/meshes/stanford_bunny/stanford-bunny.obj" --out .gpu-data/bunny --quiet
      mkdir -p .gpu-data/tools && cp -r ../shared/tools/mesh-metrics.mjs ../shared/tools/lib .gpu-data/tools/ ;;
    # dir=PATH: any posed dataset folder made here (a capture's images/ + sparse/, masks/ if any),
    # copied without its caches or the capture's working files
    dir=*) src=${set#dir=}; dst=.gpu-data/$(basename "$src"); mkdir -p "$dst"
      for part in images sparse masks transforms.json transforms_train.json transforms_test.json; do [ -e "$src/$part" ] && cp -r "$src/$part" "$dst/"; done ;;
    queue) bash scripts/stage-redis.sh .gpu-data/redis && xz -9 -T2 -f .gpu-data/redis/redis-server.bin .gpu-data/redis/lib/*.so* ;;
    *) echo "gpu-prepare: unknown data set $set (raster, statue, mic, bunny, queue, dir=PATH)" >&2; exit 2 ;;
  esac
done
# sharp is imported on the first image decode (main/engine/formats/images.ts): only sets with images
# carry it. Its JS (dist/*.mjs and three small dependencies), the addon and libvips, nothing else.
images=0
for set in "$@"; do case "$set" in statue|mic|bunny|queue|dir=*) images=1 ;; esac; done
rm -rf .gpu/node_modules/sharp .gpu/node_modules/@img .gpu/node_modules/detect-libc .gpu/node_modules/semver
if [ "$images" = 1 ]; then
  nm=.gpu/node_modules
  mkdir -p "$nm/sharp/dist" "$nm/@img"
  cp node_modules/sharp/package.json node_modules/sharp/LICENSE "$nm/sharp/" && cp node_modules/sharp/dist/*.mjs "$nm/sharp/dist/"
  cp -r node_modules/detect-libc node_modules/semver "$nm/"
  cp -r node_modules/@img/colour node_modules/@img/sharp-linux-x64 node_modules/@img/sharp-libvips-linux-x64 "$nm/@img/"
  rm -rf "$nm/@img/sharp-libvips-linux-x64/lib/glib-2.0" # headers
  xz -9 -T2 -f "$nm"/@img/sharp-linux-x64/lib/*.node "$nm"/@img/sharp-libvips-linux-x64/lib/libvips-cpp.so*
  echo "gpu-prepare: sharp $(du -cb "$nm/sharp" "$nm/@img" "$nm/detect-libc" "$nm/semver" | tail -1 | cut -f1 | awk '{printf "%.1f", $1 / 1048576}') MiB (xz)"
fi
# sql.js (capture's COLMAP database.db): its WebAssembly build only
mkdir -p .gpu/node_modules/sql.js/dist
cp node_modules/sql.js/package.json node_modules/sql.js/LICENSE .gpu/node_modules/sql.js/
cp node_modules/sql.js/dist/sql-wasm.js node_modules/sql.js/dist/sql-wasm.wasm .gpu/node_modules/sql.js/dist/
# (.gitignore lists them too; in a git worktree .git is a file and this step is skipped)
[ -d .git ] && for d in .gpu out .gpu-data; do grep -qx "/$d/" .git/info/exclude 2>/dev/null || echo "/$d/" >> .git/info/exclude; done
total=$(du -cb .gpu out .gpu-data | tail -1 | cut -f1)
tracked=$(git ls-files -z | xargs -0 du -cb 2>/dev/null | tail -1 | cut -f1)
echo "gpu-prepare: $(( (total + tracked) / 1048576 )) MiB to send (limit 63, keeping a margin under the tool's 64)"
[ $((total + tracked)) -lt $((63 * 1048576)) ] || { echo "gpu-prepare: over the 64 MiB limit" >&2; exit 1; }
