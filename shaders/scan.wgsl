// Cumulative sums and products along one axis of an n-d input read through its strides, written
// C-ordered (cumulative_sum, cumulative_prod). pycore/kernels/scan.py fills in this template, after
// common.wgsl, for each (op, input and output dtypes, rank of the other axes). A row is the
// elements along the axis at one position of the other axes. No kernel waits on another
// workgroup (WebGPU promises no forward progress between workgroups), so a long row is scanned in
// passes, each a dispatch of its own (reduce, then scan):
// - `scan_reduce`: a workgroup per block of BLOCK elements of a row writes the block's total to
//   `totals` (each element read once);
// - `scan_carry`: a workgroup per chunk of BLOCK block totals of a row sums the row's block totals
//   before its chunk, then scans its chunk's after that sum, into the exclusive prefix of each
//   block (written after all the block totals: the other chunks' workgroups still read those);
// - `scan_down`: a workgroup per block reads the block again, scans it in workgroup memory after
//   its prefix and writes it (rows of one block run this pass alone).
// - `scan_serial`: a thread per row, for short rows, for rows side by side in memory (neighbouring
//   threads read neighbouring addresses), and on CPU adapters (no barriers).
// shaders/scan4.wgsl, put after this file for 32-bit numbers, adds the same passes on vec4s of rows
// that lie contiguous in whole vec4s. A complex64 value is a vec2<f32> (re, im), its product
// `prod_c64` (shaders/reductions.wgsl), with ITEMS halved (a block of them fills workgroup memory).
// In a block, thread t loads elements t, t + WORKGROUP, ... (neighbouring threads, neighbouring
// addresses), scans its ITEMS consecutive ones from workgroup memory, and the threads' totals are
// scanned across the workgroup (log2(WORKGROUP) steps): float32 sums add at most ITEMS + 8 + the
// block prefix's terms serially, so their error grows with log(n), not n.
// Words: 0 rows, 1 n (the axis' length), 2 the input's offset, 3 its stride along the axis, 4 the
// output's stride along it, 5 include_initial (0 or 1: the output's row starts with the
// identity), 6 blocks per row, 7 chunks of block totals per row (BLOCK each), then the other axes'
// shape, their input strides and their output strides. `totals` holds rows x blocks block totals,
// then their exclusive prefixes.

@group(0) @binding(0) var<storage, read> src: array<{{in_type}}>;
@group(0) @binding(1) var<storage, read_write> dst: array<{{out_type}}>;
@group(0) @binding(2) var<storage, read_write> totals: array<{{out_type}}>;
@group(0) @binding(3) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;

const ITEMS: u32 = {{items}}u;  // elements per thread of a block (scan.py's ITEMS)
const BLOCK: u32 = WORKGROUP * ITEMS;  // elements per block
const PADDED: u32 = BLOCK + BLOCK / 32u;  // one spare slot per 32 (no bank conflicts at stride ITEMS)

var<workgroup> tile: array<{{out_type}}, PADDED>;
var<workgroup> sums: array<{{out_type}}, WORKGROUP>;

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

fn combine(a: {{out_type}}, b: {{out_type}}) -> {{out_type}} {
    return {{combine}};
}

fn identity() -> {{out_type}} {
    return {{identity}};
}

// The input element at index k, in the output's dtype.
fn load(k: i32) -> {{out_type}} {
    return {{load}};
}

fn slot(e: u32) -> u32 {
    return e + e / 32u;
}

// Where row `row` starts in src and in dst (element indices).
fn row_bases(row: u32) -> vec2<i32> {
    var ib = iword(2u);
    var ob = 0i;
{{kept}}
    return vec2<i32>(ib, ob);
}

// A block pass's workgroup: its index g among the rows' blocks (nb a row), whether it has a block
// (a 2-D grid may have spare workgroups), its row's bases in src and dst, and its block's first
// element in the row.
struct Block {
    g: u32,
    nb: u32,
    live: bool,
    b: vec2<i32>,
    first: u32,
}
fn block_at(wid: vec3<u32>, groups: vec3<u32>) -> Block {
    let g = wid.x + wid.y * groups.x;
    let nb = word(6u);
    return Block(g, nb, g < word(0u) * nb, row_bases(min(g / nb, word(0u) - 1u)), (g % nb) * BLOCK);
}

// Every thread's `acc` combined (a tree in workgroup memory), returned to every thread. Called by
// every thread of the workgroup.
fn workgroup_total(t: u32, acc: {{out_type}}) -> {{out_type}} {
    sums[t] = acc;
    workgroupBarrier();
    for (var d = WORKGROUP / 2u; d > 0u; d = d / 2u) {
        if (t < d) { sums[t] = combine(sums[t], sums[t + d]); }
        workgroupBarrier();
    }
    return sums[0];
}

// tile's BLOCK values scanned in place (inclusive), each after `carry`; returns carry combined
// with the block's total. Called by every thread of the workgroup.
fn block_scan(t: u32, carry: {{out_type}}) -> {{out_type}} {
    var acc = identity();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let e = slot(t * ITEMS + k);
        acc = combine(acc, tile[e]);
        tile[e] = acc;
    }
    sums[t] = acc;
    workgroupBarrier();
    for (var d = 1u; d < WORKGROUP; d = d * 2u) {
        var other = identity();
        if (t >= d) { other = sums[t - d]; }
        workgroupBarrier();
        sums[t] = combine(other, sums[t]);
        workgroupBarrier();
    }
    var before = carry;
    if (t > 0u) { before = combine(carry, sums[t - 1u]); }
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let e = slot(t * ITEMS + k);
        tile[e] = combine(before, tile[e]);
    }
    let total = combine(carry, sums[WORKGROUP - 1u]);
    workgroupBarrier();
    return total;
}

// ---- the kernels

@compute @workgroup_size(WORKGROUP)
fn scan_serial(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let row = flat_index(gid, groups);
    if (row >= word(0u)) { return; }
    let b = row_bases(row);
    let n = word(1u);
    let s = iword(3u);
    let os = iword(4u);
    let incl = iword(5u);
    var acc = identity();
    if (incl != 0) { dst[u32(b.y)] = acc; }
    for (var i = 0u; i < n; i = i + 1u) {
        acc = combine(acc, load(b.x + i32(i) * s));
        dst[u32(b.y + (i32(i) + incl) * os)] = acc;
    }
}

@compute @workgroup_size(WORKGROUP)
fn scan_reduce(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
               @builtin(num_workgroups) groups: vec3<u32>) {
    let blk = block_at(wid, groups);
    if (!blk.live) { return; }
    let t = lid.x;
    var acc = identity();
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let e = blk.first + t + k * WORKGROUP;
        if (e < word(1u)) { acc = combine(acc, load(blk.b.x + i32(e) * iword(3u))); }
    }
    let total = workgroup_total(t, acc);
    if (t == 0u) { totals[blk.g] = total; }
}

@compute @workgroup_size(WORKGROUP)
fn scan_carry(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) groups: vec3<u32>) {
    let g = wid.x + wid.y * groups.x;
    let chunks = word(7u);
    if (g >= word(0u) * chunks) { return; }
    let nb = word(6u);
    let row = (g / chunks) * nb;  // (its first block total)
    let first = (g % chunks) * BLOCK;  // (its chunk's first, in the row)
    let count = min(BLOCK, nb - first);
    let t = lid.x;
    var acc = array<{{out_type}}, 4>(identity(), identity(), identity(), identity());  // the row's
    var e = t;  // block totals before the chunk, summed (four loads in flight per thread)
    for (; e + 3u * WORKGROUP < first; e = e + 4u * WORKGROUP) {
        for (var k = 0u; k < 4u; k = k + 1u) { acc[k] = combine(acc[k], totals[row + e + k * WORKGROUP]); }
    }
    for (; e < first; e = e + WORKGROUP) { acc[0] = combine(acc[0], totals[row + e]); }
    let before = workgroup_total(t, combine(combine(acc[0], acc[1]), combine(acc[2], acc[3])));
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let e = t + k * WORKGROUP;
        var v = identity();
        if (e < count) { v = totals[row + first + e]; }
        tile[slot(e)] = v;
    }
    workgroupBarrier();
    _ = block_scan(t, before);
    let out = word(0u) * nb + row + first;  // (the prefixes, after every block total)
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let e = t + k * WORKGROUP;
        if (e < count) {
            var prefix = before;
            if (e > 0u) { prefix = tile[slot(e - 1u)]; }
            totals[out + e] = prefix;
        }
    }
}

@compute @workgroup_size(WORKGROUP)
fn scan_down(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) groups: vec3<u32>) {
    let blk = block_at(wid, groups);
    if (!blk.live) { return; }
    let n = word(1u);
    let t = lid.x;
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let e = t + k * WORKGROUP;
        var v = identity();
        if (blk.first + e < n) { v = load(blk.b.x + i32(blk.first + e) * iword(3u)); }
        tile[slot(e)] = v;
    }
    workgroupBarrier();
    var carry = identity();
    if (blk.nb > 1u) { carry = totals[word(0u) * blk.nb + blk.g]; }  // (its exclusive prefix: scan_carry)
    _ = block_scan(t, carry);
    let os = iword(4u);
    let incl = iword(5u);
    if (blk.first == 0u && t == 0u && incl != 0) { dst[u32(blk.b.y)] = identity(); }
    for (var k = 0u; k < ITEMS; k = k + 1u) {
        let e = t + k * WORKGROUP;
        if (blk.first + e < n) { dst[u32(blk.b.y + (i32(blk.first + e) + incl) * os)] = tile[slot(e)]; }
    }
}
