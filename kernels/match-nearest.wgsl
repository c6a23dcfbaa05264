// match-nearest: the two nearest train descriptors of each query descriptor, and the two nearest
// query descriptors of each train one, by dot product, from one pass over the dot products
// (main/engine/sfm/match.ts; tests/reference/match.ts).
// A dispatch covers one or many image pairs, each a Segment (a flat list of pairs with offsets):
//   its queries [query_first, + query_count) of `queries` and trains [train_first, + train_count)
//   of `trains` (one pair: the two images' buffers; many: both bound to one buffer holding every
//   image of the batch), and where its answers go. table[wg.x] names the segment of a nearest_two
//   workgroup (whose rows start at row_first), table[mp.table_first + wg.x] that of a
//   merge_columns one (from merge_first). Indices written are within the segment's images: the
//   answers are those of matching the pair alone, bit for bit.
//   nearest_two: workgroup of 64 threads x QUERIES_PER_THREAD queries, the segment's 512
//     (wg.x - row_first)-th; its trains [train_first + mp.train_first, train_first +
//     min(mp.train_end, train_count)) streamed through workgroup memory TRAIN_TILE at a time,
//     each loaded train word feeding QUERIES_PER_THREAD dot products (a GEMM-like register tile).
//     Per query: the largest dot product (and its index) and the second largest, into best from
//     forward_first, merged with what best holds from earlier train blocks where mp.train_first >
//     0 (one pair's trains split over dispatches). Per train of a tile: the same over this
//     workgroup's queries, into columns from column_first, row query_index_first / 512 +
//     (wg.x - row_first) (one partial per workgroup and train).
//   merge_columns: thread per train of a segment: the partials of its column_rows rows merged,
//     into best from backward_first: the train's two nearest queries (the mutual check's other
//     direction).
// Ties keep the lower index: a merge compares (dot, index), and the second largest is the
//   multiset's, so the order in which partials meet does not change the answer.
// Descriptors are the RootSIFT bytes, 4 to a u32 word (32 words each), and dot products are
//   integer (dot4U8Packed): at most 128 x 255^2 < 2^31, exact in any order, so the GPU's answer is
//   the reference's exactly; the host divides by 512^2 for the cosine. Against vec4f of bytes / 512
//   (the same exact sums) packed bytes measured 1.45x faster on llvmpipe.
// Inputs: mp (MatchParams), queries, trains, segments, table.
// Outputs: best (vec4u per descriptor: best index, best dot and second dot as i32 bits (-1: none),
//   0); columns (vec4u per (row, train): the same for one workgroup's queries).
// Workgroup: 64 threads, 512 queries; TRAIN_TILE x 128 B of train descriptors staged (1 KiB) and
//   64 x TRAIN_TILE column partials (6 KiB). The host bounds each dispatch's dot products
//   (queries split into blocks, and past the cap the trains too; pairs batched up to the cap).

const WORKGROUP: u32 = 64u;
const QUERIES_PER_THREAD: u32 = 8u; // 8 against 4: 1.4x less CPU on llvmpipe (fewer staged-word loads)
const QUERIES_PER_WORKGROUP: u32 = 512u; // WORKGROUP x QUERIES_PER_THREAD
const TRAIN_TILE: u32 = 8u;
const WORDS: u32 = 32u; // u32 words (4 bytes each) per descriptor
const NONE: u32 = 0xffffffffu;

struct MatchParams {
  // nearest_two: this dispatch's trains of each segment, [train_first, train_end) clamped to its count
  train_first: u32,
  train_end: u32,
  // merge_columns: where its workgroups' segments start in table
  table_first: u32,
  _pad0: u32,
}

// One image pair of a dispatch (descriptor indices into queries / trains, answer indices into best).
struct Segment {
  query_first: u32,
  query_count: u32,
  // the index (within its image) of query_first: a pair's later query blocks start past 0
  query_index_first: u32,
  train_first: u32,
  train_count: u32,
  forward_first: u32,
  backward_first: u32,
  column_first: u32,
  column_rows: u32,
  row_first: u32,
  merge_first: u32,
  _pad0: u32,
}

@group(0) @binding(0) var<uniform> mp: MatchParams;
@group(0) @binding(1) var<storage, read> queries: array<u32>;
@group(0) @binding(2) var<storage, read> trains: array<u32>;
@group(0) @binding(3) var<storage, read_write> best: array<vec4u>;
@group(0) @binding(4) var<storage, read_write> columns: array<vec4u>;
@group(0) @binding(5) var<storage, read> segments: array<Segment>;
@group(0) @binding(6) var<storage, read> table: array<u32>;

var<workgroup> tile: array<u32, TRAIN_TILE * WORDS>;
// per (thread, train of the tile): the best dot, its query, the second dot among the thread's queries
var<workgroup> column_dot: array<i32, WORKGROUP * TRAIN_TILE>;
var<workgroup> column_index: array<u32, WORKGROUP * TRAIN_TILE>;
var<workgroup> column_second: array<i32, WORKGROUP * TRAIN_TILE>;

// Two top-2 summaries (best dot, its index, second dot) merged: of equal bests the lower index.
struct Top2 {
  dot: i32,
  index: u32,
  second: i32,
}

fn merge(a: Top2, b: Top2) -> Top2 {
  if (b.dot > a.dot || (b.dot == a.dot && b.index < a.index)) {
    return Top2(b.dot, b.index, max(a.dot, b.second));
  }
  return Top2(a.dot, a.index, max(a.second, b.dot));
}

@compute @workgroup_size(64, 1, 1)
fn nearest_two(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3u) {
  let seg = segments[table[wg.x]];
  let block = wg.x - seg.row_first;
  let train_begin = seg.train_first + mp.train_first;
  let train_end = seg.train_first + min(mp.train_end, seg.train_count);
  // the thread's queries: lid, lid + 64, lid + 128, ... of the workgroup's (coalesced loads)
  var query: array<array<u32, WORDS>, QUERIES_PER_THREAD>;
  var in_range: array<bool, QUERIES_PER_THREAD>;
  var rows: array<Top2, QUERIES_PER_THREAD>;
  for (var k = 0u; k < QUERIES_PER_THREAD; k++) {
    let local = block * QUERIES_PER_WORKGROUP + k * WORKGROUP + lid;
    in_range[k] = local < seg.query_count;
    let clamped = min(local, max(seg.query_count, 1u) - 1u);
    let q = seg.query_first + clamped;
    for (var i = 0u; i < WORDS; i++) {
      query[k][i] = queries[q * WORDS + i];
    }
    rows[k] = Top2(-1, NONE, -1);
    if (mp.train_first > 0u) {
      let earlier = best[seg.forward_first + clamped];
      rows[k] = Top2(bitcast<i32>(earlier.y), earlier.x, bitcast<i32>(earlier.z));
    }
  }
  let row = seg.query_index_first / QUERIES_PER_WORKGROUP + block;
  for (var start = train_begin; start < train_end; start += TRAIN_TILE) {
    workgroupBarrier();
    for (var i = lid; i < TRAIN_TILE * WORDS; i += WORKGROUP) {
      let t = start + i / WORDS;
      tile[i] = select(0u, trains[min(t, train_end - 1u) * WORDS + i % WORDS], t < train_end);
    }
    workgroupBarrier();
    for (var j = 0u; j < TRAIN_TILE; j++) {
      // zeroed explicitly: SwiftShader kept the sums of the previous train in an array declared
      // here without an initializer (WGSL zero-initializes it at every declaration)
      var total: array<u32, QUERIES_PER_THREAD>;
      for (var k = 0u; k < QUERIES_PER_THREAD; k++) {
        total[k] = 0u;
      }
      for (var i = 0u; i < WORDS; i++) {
        let word = tile[j * WORDS + i];
        for (var k = 0u; k < QUERIES_PER_THREAD; k++) {
          total[k] += dot4U8Packed(query[k][i], word);
        }
      }
      let t = start + j;
      let train_index = t - seg.train_first;
      var column = Top2(-1, NONE, -1);
      for (var k = 0u; k < QUERIES_PER_THREAD; k++) {
        // a train past the end, or a query past the end, is no candidate (-1 never wins)
        let sum = select(-1, i32(total[k]), in_range[k] && t < train_end);
        if (sum > rows[k].dot) {
          rows[k] = Top2(sum, train_index, rows[k].dot);
        } else if (sum > rows[k].second) {
          rows[k].second = sum;
        }
        let q = seg.query_index_first + block * QUERIES_PER_WORKGROUP + k * WORKGROUP + lid;
        column = merge(column, Top2(sum, select(NONE, q, sum >= 0), -1));
      }
      column_dot[lid * TRAIN_TILE + j] = column.dot;
      column_index[lid * TRAIN_TILE + j] = column.index;
      column_second[lid * TRAIN_TILE + j] = column.second;
    }
    workgroupBarrier();
    // the tile's columns over the workgroup: 8 threads a train, each over 8 threads' partials, then one
    let j = lid % TRAIN_TILE;
    let part = lid / TRAIN_TILE;
    var merged = Top2(-1, NONE, -1);
    for (var p = part * 8u; p < part * 8u + 8u; p++) {
      merged = merge(merged, Top2(column_dot[p * TRAIN_TILE + j], column_index[p * TRAIN_TILE + j], column_second[p * TRAIN_TILE + j]));
    }
    workgroupBarrier();
    column_dot[part * TRAIN_TILE + j] = merged.dot;
    column_index[part * TRAIN_TILE + j] = merged.index;
    column_second[part * TRAIN_TILE + j] = merged.second;
    workgroupBarrier();
    if (lid < TRAIN_TILE && start + lid < train_end) {
      var tile_best = Top2(-1, NONE, -1);
      for (var p = 0u; p < WORKGROUP / 8u; p++) {
        tile_best = merge(tile_best, Top2(column_dot[p * TRAIN_TILE + lid], column_index[p * TRAIN_TILE + lid], column_second[p * TRAIN_TILE + lid]));
      }
      columns[seg.column_first + row * seg.train_count + (start + lid - seg.train_first)] = vec4u(tile_best.index, bitcast<u32>(tile_best.dot), bitcast<u32>(tile_best.second), 0u);
    }
  }
  for (var k = 0u; k < QUERIES_PER_THREAD; k++) {
    if (in_range[k]) {
      let local = block * QUERIES_PER_WORKGROUP + k * WORKGROUP + lid;
      best[seg.forward_first + local] = vec4u(rows[k].index, bitcast<u32>(rows[k].dot), bitcast<u32>(rows[k].second), 0u);
    }
  }
}

@compute @workgroup_size(64, 1, 1)
fn merge_columns(@builtin(local_invocation_index) lid: u32, @builtin(workgroup_id) wg: vec3u) {
  let seg = segments[table[mp.table_first + wg.x]];
  let t = (wg.x - seg.merge_first) * 64u + lid;
  if (t >= seg.train_count) {
    return;
  }
  var total = Top2(-1, NONE, -1);
  for (var r = 0u; r < seg.column_rows; r++) {
    let c = columns[seg.column_first + r * seg.train_count + t];
    total = merge(total, Top2(bitcast<i32>(c.y), c.x, bitcast<i32>(c.z)));
  }
  best[seg.backward_first + t] = vec4u(total.index, bitcast<u32>(total.dot), bitcast<u32>(total.second), 0u);
}
