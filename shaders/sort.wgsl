// Stable sorting along one axis (sort, argsort): pycore/kernels/sort.py fills in this template,
// after common.wgsl, for each kernel (entry), dtype, rank of the other axes and what a step reads
// and writes. A row is the elements along the axis at one position of the other axes.
//
// Every value is sorted by a u32 key that orders as the value does: a float's bits with the sign
// bit set (non-negative) or all bits flipped (negative), -0.0 taken as +0.0, every NaN the largest
// key; an int32's bits with the sign bit flipped; a uint32's or bool's bits. A descending sort
// flips every bit of the key (word 4), so that it stays stable: equal values keep their order.
// The values move with their bits (-0.0 stays -0.0), argsort's indices with them.
//
// - `bitonic`: rows of at most 1024 elements, a workgroup per row: (key, column) pairs sorted in
//   workgroup memory by a bitonic network; the column breaks ties, so the order is stable.
// - the LSD radix sort of longer rows, 8 bits per pass, each pass three dispatches:
//   `histogram` (a workgroup per tile of TILE elements of a row: the count of each digit),
//   `scan` (a workgroup per row: the counts, laid out [row][digit][tile], become exclusive
//   prefix sums: where each tile's elements of each digit go in the row), and `scatter` (a
//   workgroup per tile: each element to its place; within a tile elements are ranked in order,
//   256 at a time, by counting the earlier ones of the same digit, so every pass is stable).
//   No workgroup waits on another (WebGPU promises no forward progress across workgroups).
//
// Words (u32; i32 bits where signed): 0 rows, 1 columns, 2 tiles per row (bitonic: the padded
// row length, a power of two), 3 the pass' shift, 4 the key's flip (0 or 0xffffffff), 5 the
// input's offset, 6 its stride along the axis, 7 the output's stride along the axis, then the
// other axes' shape, their input strides and their output strides (the output is C-ordered in the
// input's shape). Between passes values and indices lie row after row, contiguously.

{{bindings}}
@group(0) @binding({{meta}}) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;

const TILE_THREADS: u32 = 256u;  // threads of a histogram/scatter/scan/bitonic workgroup
const TILE_ROUNDS: u32 = 16u;  // elements per thread of a radix tile (a tile: TILE_THREADS * TILE_ROUNDS)
const BITONIC_MAX: u32 = 1024u;  // the longest row the bitonic kernel sorts
const NO_DIGIT: u32 = 0xffffffffu;

var<workgroup> shared_a: array<u32, BITONIC_MAX>;
var<workgroup> shared_b: array<u32, BITONIC_MAX>;
var<workgroup> counts: array<atomic<u32>, 256>;

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

// The sort key of a stored value's bits (ascending; see the top).
fn key_of(bits: u32) -> u32 {
{{key}}
}

fn sort_key(bits: u32) -> u32 {
    return key_of(bits) ^ word(4u);
}

fn digit_of(bits: u32) -> u32 {
    return (sort_key(bits) >> word(3u)) & 0xffu;
}

// Where row `row` starts in the input and in the output (element indices).
fn row_bases(row: u32) -> vec2<i32> {
    var ib = iword(5u);
    var ob = 0i;
{{kept}}
    return vec2<i32>(ib, ob);
}

fn group_index(wid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return wid.x + wid.y * groups.x;
}

{{read}}

{{write}}

// ---- the kernels

@compute @workgroup_size(TILE_THREADS)
fn histogram(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, groups);
    let tiles = word(2u);
    if (g >= word(0u) * tiles) { return; }
    let row = g / tiles;
    let tile = g % tiles;
    atomicStore(&counts[lid], 0u);
    workgroupBarrier();
    let b = row_bases(row);
    let start = tile * TILE_THREADS * TILE_ROUNDS;
    let end = min(start + TILE_THREADS * TILE_ROUNDS, word(1u));
    for (var c = start + lid; c < end; c = c + TILE_THREADS) {
        atomicAdd(&counts[digit_of(value_at(row, b.x, c))], 1u);
    }
    workgroupBarrier();
    hist[(row * 256u + lid) * tiles + tile] = atomicLoad(&counts[lid]);
}

@compute @workgroup_size(TILE_THREADS)
fn scan(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {
    let row = group_index(wid, groups);
    if (row >= word(0u)) { return; }
    let tiles = word(2u);
    let base = (row * 256u + lid) * tiles;
    var own = 0u;
    for (var t = 0u; t < tiles; t = t + 1u) {
        own = own + hist[base + t];
    }
    shared_a[lid] = own;
    workgroupBarrier();
    for (var step = 1u; step < TILE_THREADS; step = step * 2u) {  // (inclusive, Hillis-Steele)
        var left = 0u;
        if (lid >= step) { left = shared_a[lid - step]; }
        workgroupBarrier();
        shared_a[lid] = shared_a[lid] + left;
        workgroupBarrier();
    }
    var run = shared_a[lid] - own;
    for (var t = 0u; t < tiles; t = t + 1u) {
        let n = hist[base + t];
        hist[base + t] = run;
        run = run + n;
    }
}

@compute @workgroup_size(TILE_THREADS)
fn scatter(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let g = group_index(wid, groups);
    let tiles = word(2u);
    if (g >= word(0u) * tiles) { return; }
    let row = g / tiles;
    let tile = g % tiles;
    let cols = word(1u);
    shared_b[lid] = hist[(row * 256u + lid) * tiles + tile];  // (where this tile's digit lid goes)
    let b = row_bases(row);
    let start = tile * TILE_THREADS * TILE_ROUNDS;
    for (var r = 0u; r < TILE_ROUNDS; r = r + 1u) {
        let first = start + r * TILE_THREADS;
        if (first >= cols) { break; }
        let c = first + lid;
        let live = c < cols;
        var bits = 0u;
        var index = 0u;
        var d = NO_DIGIT;
        if (live) {
            bits = value_at(row, b.x, c);
            index = index_at(row, c);
            d = digit_of(bits);
        }
        shared_a[lid] = d;
        workgroupBarrier();
        var before = 0u;
        var same = 0u;
        let n = min(TILE_THREADS, cols - first);
        for (var j = 0u; j < n; j = j + 1u) {
            let hit = select(0u, 1u, shared_a[j] == d);
            same = same + hit;
            before = before + select(0u, hit, j < lid);
        }
        if (live) {
            put(row, b.y, shared_b[d] + before, bits, index);
        }
        workgroupBarrier();
        if (live && before + 1u == same) {  // (the last of its digit in this round moves it on)
            shared_b[d] = shared_b[d] + same;
        }
        workgroupBarrier();
    }
}

@compute @workgroup_size(TILE_THREADS)
fn bitonic(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let row = group_index(wid, groups);
    if (row >= word(0u)) { return; }
    let cols = word(1u);
    let size = word(2u);
    let b = row_bases(row);
    for (var c = lid; c < size; c = c + TILE_THREADS) {
        var k = 0xffffffffu;  // (padding: after every element, as its column is larger)
        if (c < cols) { k = sort_key(value_at(row, b.x, c)); }
        shared_a[c] = k;
        shared_b[c] = c;
    }
    workgroupBarrier();
    for (var k = 2u; k <= size; k = k * 2u) {
        for (var j = k / 2u; j > 0u; j = j / 2u) {
            for (var t = lid; t < size / 2u; t = t + TILE_THREADS) {
                let i = (t / j) * 2u * j + t % j;
                let l = i + j;
                let ka = shared_a[i];
                let kb = shared_a[l];
                let ia = shared_b[i];
                let ib = shared_b[l];
                let greater = ka > kb || (ka == kb && ia > ib);
                if (greater == ((i & k) == 0u)) {
                    shared_a[i] = kb;
                    shared_a[l] = ka;
                    shared_b[i] = ib;
                    shared_b[l] = ia;
                }
            }
            workgroupBarrier();
        }
    }
    for (var c = lid; c < cols; c = c + TILE_THREADS) {
        let index = shared_b[c];
        put(row, b.y, c, value_at(row, b.x, index), index);
    }
}
