#!/usr/bin/env bash
# Copies redis-server and the shared libraries it needs that a bare Debian-like image may lack into
# DIR, with a wrapper DIR/redis-server that runs it with LD_LIBRARY_PATH=DIR/lib (the GPU machine
# has no Redis: scripts/gpu-prepare.sh's set `queue`, docs/gpu-machine.md).
#   bash scripts/stage-redis.sh DIR [REDIS_SERVER]
# The C runtime is left to the image (libc, libm, libpthread, libdl, librt, the loader, the vdso):
# a copy of those would have to match the image's loader. Debian's /usr/bin/redis-server is a link
# to redis-check-rdb, which picks its mode from argv[0]: the copy is named redis-server.bin, so it
# runs as the server.
set -euo pipefail
dir=${1:?usage: stage-redis.sh DIR [REDIS_SERVER]}
server=${2:-$(command -v redis-server || true)}
[ -n "$server" ] && [ -x "$server" ] || { echo "stage-redis: no redis-server (apt-get install redis-server)" >&2; exit 3; }
rm -rf "$dir" && mkdir -p "$dir/lib"
cp -L "$server" "$dir/redis-server.bin"
ldd "$server" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' \
  | grep -Ev '/(libc|libm|libpthread|libdl|librt|ld-linux[^/]*)\.so' \
  | while read -r lib; do cp -L "$lib" "$dir/lib/"; done
cat > "$dir/redis-server" <<'WRAPPER'
#!/bin/sh
# redis-server with the libraries beside it (scripts/stage-redis.sh)
here=$(cd "$(dirname "$0")" && pwd)
LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" exec "$here/redis-server.bin" "$@"
WRAPPER
chmod +x "$dir/redis-server"
echo "stage-redis: $(ls "$dir/lib" | wc -l) libraries, $(du -cb "$dir" | tail -1 | cut -f1 | awk '{printf "%.1f", $1 / 1048576}') MiB in $dir"
