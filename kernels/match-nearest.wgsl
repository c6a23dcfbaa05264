// match-nearest: the two nearest train descriptors of each query descriptor, by dot product
// (main/engine/sfm/match.ts; tests/reference/match.ts).
//   nearest_two: thread per query in [query_first, query_first + query_count): its descriptor in
//     registers, the train set streamed through workgroup memory in tiles of TRAIN_TILE; keeps
//     the largest dot product (and its index) and the second largest. Ties keep the lower index.
// Descriptors are RootSIFT bytes / 512 (vec4 x 32 each): every product is a multiple of 2^-18
//   below 2^-2 and every dot product below 2^24 of those units, so f32 sums are exact in any
//   order and the GPU's answer is the reference's exactly.
// Inputs: mp (MatchParams), queries, trains.
// Outputs: best (vec4u per query: best index, best dot bits, second dot bits, 0), from query_first.
// Workgroup: 64 queries; TRAIN_TILE x 512 B of train descriptors staged (8 KiB).
// The host splits the queries into dispatches of bounded work (no dispatch runs long).

const TRAIN_TILE: u32 = 16u;
const WORDS: u32 = 32u; // vec4 per descriptor

struct MatchParams {
  query_first: u32,
  query_count: u32,
  train_count: u32,
  _pad0: u32,
}

@group(0) @binding(0) var<uniform> mp: MatchParams;
@group(0) @binding(1) var<storage, read> queries: array<vec4f>;
@group(0) @binding(2) var<storage, read> trains: array<vec4f>;
@group(0) @binding(3) var<storage, read_write> best: array<vec4u>;

var<workgroup> tile: array<vec4f, TRAIN_TILE * WORDS>;

@compute @workgroup_size(64, 1, 1)
fn nearest_two(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3u) {
  let local = wg.x * 64u + lid;
  let in_range = local < mp.query_count;
  let q = mp.query_first + min(local, max(mp.query_count, 1u) - 1u);
  var query: array<vec4f, WORDS>;
  for (var i = 0u; i < WORDS; i++) {
    query[i] = queries[q * WORDS + i];
  }
  var best_dot = -1.0;
  var second_dot = -1.0;
  var best_index = 0xffffffffu;
  for (var start = 0u; start < mp.train_count; start += TRAIN_TILE) {
    workgroupBarrier();
    for (var i = lid; i < TRAIN_TILE * WORDS; i += 64u) {
      let t = start + i / WORDS;
      tile[i] = select(vec4f(0.0), trains[min(t, mp.train_count - 1u) * WORDS + i % WORDS], t < mp.train_count);
    }
    workgroupBarrier();
    let n = min(TRAIN_TILE, mp.train_count - start);
    for (var j = 0u; j < n; j++) {
      var sum = 0.0;
      for (var i = 0u; i < WORDS; i++) {
        sum += dot(query[i], tile[j * WORDS + i]);
      }
      if (sum > best_dot) {
        second_dot = best_dot;
        best_dot = sum;
        best_index = start + j;
      } else if (sum > second_dot) {
        second_dot = sum;
      }
    }
  }
  if (in_range) {
    best[q] = vec4u(best_index, bitcast<u32>(best_dot), bitcast<u32>(second_dot), 0u);
  }
}
