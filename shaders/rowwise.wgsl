// Row-wise kernels over the last axis of a (rows, cols) matrix, fused into one dispatch: find the
// row max, then the sum of exp(x - max), then write the result (no round trip to the CPU).
// log_softmax writes (x - max) - log(sum) in that order: max + log(sum) would round to the
// float32 spacing of a large max (0.0625 near 1e6) and lose log(sum) to it.
// - `softmax`, `log_softmax` (GPUs, and few long rows): one WORKGROUP-thread workgroup per row, with
//   tree reductions in workgroup memory in between. Workgroups form a 2-D grid
//   (row = wid.x + wid.y * groups.x) so more than 65,535 rows work.
// - `softmax_thread`, `log_softmax_thread` (CPU adapters such as SwiftShader, where each barrier
//   switches every thread's context): one thread per row, no workgroup memory, no barrier.

// neg_inf holds the bits of -inf: WGSL has no infinity literal and rejects one made by a constant
// bitcast, so it comes from the host.
struct Dims { rows: u32, cols: u32, neg_inf: u32, _p3: u32, _p4: u32, _p5: u32, _p6: u32, _p7: u32 }

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> dims: Dims;

var<workgroup> scratch: array<f32, WORKGROUP>;

// max that returns NaN if either side is NaN, as NumPy's does
fn max_nan(a: f32, b: f32) -> f32 {
    return select(select(max(a, b), a, is_nan(a)), b, is_nan(b));
}

// A row whose max is not finite (it holds NaN or +inf, or is all -inf) is NaN throughout in NumPy
// (inf - inf and exp(NaN) are NaN). GPUs may compute those steps differently (SwiftShader gave
// [0, NaN, 0] for [0, inf, 0]), so such a row is written as NaN explicitly: NaN's bits come from
// neg_inf's (-inf with a mantissa bit set), as WGSL has no NaN literal.
fn row_is_nan(row_max: f32) -> bool {
    return (bitcast<u32>(row_max) & 0x7fffffffu) >= 0x7f800000u;
}

fn nan_value() -> f32 {
    return bitcast<f32>(dims.neg_inf | 0x00400000u);
}

// Tree reduction of scratch[0..WORKGROUP) into scratch[0]; `use_max` picks max (else sum).
fn reduce_scratch(lid: u32, use_max: bool) {
    for (var stride = WORKGROUP / 2u; stride > 0u; stride = stride / 2u) {
        workgroupBarrier();
        if (lid < stride) {
            let a = scratch[lid];
            let b = scratch[lid + stride];
            scratch[lid] = select(a + b, max_nan(a, b), use_max);
        }
    }
    workgroupBarrier();
}

// The row's max and sum of exp(x - max); every thread gets both.
fn row_stats(base: u32, lid: u32) -> vec2<f32> {
    var m = bitcast<f32>(dims.neg_inf);
    for (var c = lid; c < dims.cols; c = c + WORKGROUP) {
        m = max_nan(m, src[base + c]);
    }
    scratch[lid] = m;
    reduce_scratch(lid, true);
    let row_max = scratch[0];
    workgroupBarrier();
    var s = 0.0;
    for (var c = lid; c < dims.cols; c = c + WORKGROUP) {
        s = s + exp(src[base + c] - row_max);
    }
    scratch[lid] = s;
    reduce_scratch(lid, false);
    return vec2<f32>(row_max, scratch[0]);
}

@compute @workgroup_size(WORKGROUP)
fn softmax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
           @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * groups.x;
    if (row >= dims.rows) { return; }
    let base = row * dims.cols;
    let stats = row_stats(base, lid);
    let inv = 1.0 / stats.y;
    let nan_row = row_is_nan(stats.x);
    for (var c = lid; c < dims.cols; c = c + WORKGROUP) {
        dst[base + c] = select(exp(src[base + c] - stats.x) * inv, nan_value(), nan_row);
    }
}

@compute @workgroup_size(WORKGROUP)
fn log_softmax(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
               @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * groups.x;
    if (row >= dims.rows) { return; }
    let base = row * dims.cols;
    let stats = row_stats(base, lid);
    let log_sum = log(stats.y);
    let nan_row = row_is_nan(stats.x);
    for (var c = lid; c < dims.cols; c = c + WORKGROUP) {
        dst[base + c] = select((src[base + c] - stats.x) - log_sum, nan_value(), nan_row);
    }
}

// ---- the CPU-adapter pair: thread `row` = gid.x + gid.y * (groups.x * 64) does the whole row.
fn thread_row(gid: vec3<u32>, groups: vec3<u32>) -> u32 {
    return gid.x + gid.y * (groups.x * THREAD_GROUP);
}

// The row's max and sum of exp(x - max), the sum in blocks of 64 (its error grows with
// cols / 64 + 64 rather than cols).
fn row_stats_thread(base: u32) -> vec2<f32> {
    var m = bitcast<f32>(dims.neg_inf);
    for (var c = 0u; c < dims.cols; c = c + 1u) {
        m = max_nan(m, src[base + c]);
    }
    var s = 0.0;
    for (var c0 = 0u; c0 < dims.cols; c0 = c0 + 64u) {
        var block = 0.0;
        for (var c = c0; c < min(c0 + 64u, dims.cols); c = c + 1u) {
            block = block + exp(src[base + c] - m);
        }
        s = s + block;
    }
    return vec2<f32>(m, s);
}

@compute @workgroup_size(THREAD_GROUP)
fn softmax_thread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let row = thread_row(gid, groups);
    if (row >= dims.rows) { return; }
    let base = row * dims.cols;
    let stats = row_stats_thread(base);
    let inv = 1.0 / stats.y;
    let nan_row = row_is_nan(stats.x);
    for (var c = 0u; c < dims.cols; c = c + 1u) {
        dst[base + c] = select(exp(src[base + c] - stats.x) * inv, nan_value(), nan_row);
    }
}

@compute @workgroup_size(THREAD_GROUP)
fn log_softmax_thread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let row = thread_row(gid, groups);
    if (row >= dims.rows) { return; }
    let base = row * dims.cols;
    let stats = row_stats_thread(base);
    let log_sum = log(stats.y);
    let nan_row = row_is_nan(stats.x);
    for (var c = 0u; c < dims.cols; c = c + 1u) {
        dst[base + c] = select((src[base + c] - stats.x) - log_sum, nan_value(), nan_row);
    }
}
