// Row-wise ops along one axis of an n-d input read through their strides: pycore/kernels/rowwise.py
// fills in this template for each op (a `RowOp`: two reductions of each row, then every element
// written from them) and rank of the other axes, after common.wgsl. A row is the elements along
// the axis at one position of the other axes. Pass 1 reduces `first_of(x)` (by max or by sum) to
// t, from which `center_of` makes the row's m; pass 2 sums `second_of(x, m)` to s; `prepare` makes
// the row's constant k, and `finish` each element (times the weight and plus the bias of its
// column, where the op has them). softmax: the max, then the sum of exp(x - max); layer norm: the
// mean, then the sum of squared deviations; rms norm: the mean of squares, no second pass.
// log_softmax writes (x - max) - log(sum) in that order: max + log(sum) would round to the
// float32 spacing of a large max (0.0625 near 1e6) and lose log(sum) to it.
// - `rows_tree` (GPUs, and few long rows): a WORKGROUP-thread workgroup per row, with tree
//   reductions in workgroup memory; row = wid.x + wid.y * groups.x (more than 65,535 rows work).
// - `rows_side` (GPUs, rows whose elements lie side by side: softmax along the first axis of a
//   C-ordered array): OX neighbouring rows per workgroup, RY threads along each, so that
//   neighbouring threads load neighbouring addresses; RY-wide tree reductions per row.
// - `rows_thread` (CPU adapters such as SwiftShader, where each barrier switches every thread's
//   context): a thread per row, no workgroup memory, no barrier.
// Words: 0 rows, 1 columns (the axis' length), 2 the input's offset, 3 its stride along the axis,
// 4 the output's stride along the axis, 5 the bits of -inf, 6 the bits of eps (the norms'), then the
// other axes' shape, their input strides and their output strides (the output is C-ordered in the
// input's shape).

@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;
{{affine_bindings}}

var<workgroup> scratch: array<f32, WORKGROUP>;

const OX: u32 = 16u;  // rows_side: rows per workgroup (OX x RY = WORKGROUP threads; 16 x 16 was the
const RY: u32 = 16u;  // fastest of 32 x 8, 16 x 16, 8 x 32 and 64 x 4 on an H100)

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

// max that returns NaN if either side is NaN, as NumPy's does
fn max_nan(a: f32, b: f32) -> f32 {
    return select(select(max(a, b), a, is_nan(a)), b, is_nan(b));
}

// softmax's: a row whose max is not finite (it holds NaN or +inf, or is all -inf) is NaN throughout
// in NumPy (inf - inf and exp(NaN) are NaN). GPUs may compute those steps differently (SwiftShader
// gave [0, NaN, 0] for [0, inf, 0]), so such a row is written as NaN explicitly: NaN's bits come
// from -inf's (with a mantissa bit set), as WGSL has no NaN or infinity literal.
fn row_is_nan(m: f32) -> bool {
    return NAN_ROWS && !is_finite(m);
}

const NAN_ROWS: bool = {{nan_rows}};
const FIRST_MAX: bool = {{first_max}};  // pass 1 takes the max (else the sum)
const SECOND: bool = {{second_pass}};  // there is a pass 2

fn first_of(x: f32) -> f32 {
    return {{first}};
}

fn combine1(a: f32, b: f32) -> f32 {
    return select(a + b, max_nan(a, b), FIRST_MAX);
}

fn init1() -> f32 {
    return select(0.0, bitcast<f32>(word(5u)), FIRST_MAX);
}

// The row's m from pass 1's total t over its n elements.
fn center_of(t: f32, n: f32) -> f32 {
    return {{center}};
}

fn second_of(x: f32, m: f32) -> f32 {
    return {{second}};
}

fn nan_value() -> f32 {
    return bitcast<f32>(word(5u) | 0x00400000u);
}

// Where row `row` starts in src and in dst (element indices).
fn row_bases(row: u32) -> vec2<i32> {
    var ib = iword(2u);
    var ob = 0i;
{{kept}}
    return vec2<i32>(ib, ob);
}

fn at(ib: i32, c: u32) -> f32 {
    return src[u32(ib + i32(c) * iword(3u))];
}

fn put(ob: i32, c: u32, y: f32) {
    dst[u32(ob + i32(c) * iword(4u))] = y;
}

// The per-row constant of the op, from the row's m, pass 2's sum s, n and eps.
fn prepare(m: f32, s: f32, n: f32) -> f32 {
    let eps = bitcast<f32>(word(6u));
    return {{prepare}};
}

// The element of column c's result, from its value x, the row's m and its constant k.
fn finish(x: f32, m: f32, k: f32, c: u32) -> f32 {
    let y = {{finish}};
    return {{affine}};
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

@compute @workgroup_size(WORKGROUP)
fn rows_tree(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
             @builtin(local_invocation_index) lid: u32) {
    let row = wid.x + wid.y * groups.x;
    if (row >= word(0u)) { return; }
    let cols = word(1u);
    let b = row_bases(row);
    let n = f32(cols);
    var t = init1();
    for (var c = lid; c < cols; c = c + WORKGROUP) {
        t = combine1(t, first_of(at(b.x, c)));
    }
    scratch[lid] = t;
    reduce_scratch(lid, FIRST_MAX);
    let m = center_of(scratch[0], n);
    workgroupBarrier();
    var s = 0.0;
    if (SECOND) {
        for (var c = lid; c < cols; c = c + WORKGROUP) {
            s = s + second_of(at(b.x, c), m);
        }
        scratch[lid] = s;
        reduce_scratch(lid, false);
        s = scratch[0];
    }
    let k = prepare(m, s, n);
    let nan_row = row_is_nan(m);
    for (var c = lid; c < cols; c = c + WORKGROUP) {
        put(b.y, c, select(finish(at(b.x, c), m, k, c), nan_value(), nan_row));
    }
}

// Tree reduction over the RY threads of each row of a rows_side workgroup, into scratch[lid.x].
fn reduce_side(lid: vec3<u32>, use_max: bool) {
    for (var stride = RY / 2u; stride > 0u; stride = stride / 2u) {
        workgroupBarrier();
        if (lid.y < stride) {
            let a = scratch[lid.y * OX + lid.x];
            let b = scratch[(lid.y + stride) * OX + lid.x];
            scratch[lid.y * OX + lid.x] = select(a + b, max_nan(a, b), use_max);
        }
    }
    workgroupBarrier();
}

@compute @workgroup_size(OX, RY)
fn rows_side(@builtin(local_invocation_id) lid: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
             @builtin(num_workgroups) groups: vec3<u32>) {
    let rows = word(0u);
    let row = (wid.x + wid.y * groups.x) * OX + lid.x;
    let live = row < rows;  // (the others compute on the last row, and write nothing)
    let b = row_bases(min(row, rows - 1u));
    let cols = word(1u);
    let n = f32(cols);
    let slot = lid.y * OX + lid.x;
    var t = init1();
    for (var c = lid.y; c < cols; c = c + RY) {
        t = combine1(t, first_of(at(b.x, c)));
    }
    scratch[slot] = t;
    reduce_side(lid, FIRST_MAX);
    let m = center_of(scratch[lid.x], n);
    workgroupBarrier();
    var s = 0.0;
    if (SECOND) {
        for (var c = lid.y; c < cols; c = c + RY) {
            s = s + second_of(at(b.x, c), m);
        }
        scratch[slot] = s;
        reduce_side(lid, false);
        s = scratch[lid.x];
    }
    let k = prepare(m, s, n);
    let nan_row = row_is_nan(m);
    if (live) {
        for (var c = lid.y; c < cols; c = c + RY) {
            put(b.y, c, select(finish(at(b.x, c), m, k, c), nan_value(), nan_row));
        }
    }
}

// The sums in blocks of 64: their error grows with cols / 64 + 64 rather than cols.
@compute @workgroup_size(THREAD_GROUP)
fn rows_thread(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let row = gid.x + gid.y * (groups.x * THREAD_GROUP);
    if (row >= word(0u)) { return; }
    let cols = word(1u);
    let b = row_bases(row);
    let n = f32(cols);
    var t = init1();
    for (var c0 = 0u; c0 < cols; c0 = c0 + 64u) {
        var block = init1();
        for (var c = c0; c < min(c0 + 64u, cols); c = c + 1u) {
            block = combine1(block, first_of(at(b.x, c)));
        }
        t = combine1(t, block);
    }
    let m = center_of(t, n);
    var s = 0.0;
    if (SECOND) {
        for (var c0 = 0u; c0 < cols; c0 = c0 + 64u) {
            var block = 0.0;
            for (var c = c0; c < min(c0 + 64u, cols); c = c + 1u) {
                block = block + second_of(at(b.x, c), m);
            }
            s = s + block;
        }
    }
    let k = prepare(m, s, n);
    let nan_row = row_is_nan(m);
    for (var c = 0u; c < cols; c = c + 1u) {
        put(b.y, c, select(finish(at(b.x, c), m, k, c), nan_value(), nan_row));
    }
}
