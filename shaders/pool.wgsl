// Max and average pooling of x (N, C, *spatial), read through its strides, into a C-ordered
// (N, C, *out): pycore/kernels/pool.py fills in this template for each number of spatial axes
// (1 to 3) and each reduction, after common.wgsl. One thread per output element walks its window
// (kernel offsets in C order, `dilation` apart), skipping the taps outside x: the padding of a max
// pool is -inf, of an average pool zeros. The max propagates NaN; the average divides the window's
// sum by its count: the taps inside x padded by `padding` on each side (count_include_pad), or
// inside x only. Words of `words`: 0 outputs, 1 channels C, 2 x's offset, 3 and 4 x's batch and
// channel strides, then per spatial axis (see pool.py): the output's size, x's size, x's stride,
// the kernel's size, the stride, the padding, the dilation, and the positions an average counts,
// from and to (x padded by the padding: count_include_pad; x alone: not).
// x is float32, or float16 read from its u32 words (pooled in float32 either way).

@group(0) @binding(0) var<storage, read> x: array<{{x_type}}>;
@group(0) @binding(1) var<storage, read_write> out: array<f32>;
@group(0) @binding(2) var<uniform> words: array<vec4<u32>, {{meta_vec4s}}>;

// element i of x as f32 (a float16 x's from its u32 words)
{{loaders}}

fn word(k: u32) -> u32 {
    return words[k / 4u][k % 4u];
}

fn iword(k: u32) -> i32 {
    return bitcast<i32>(words[k / 4u][k % 4u]);
}

@compute @workgroup_size(WORKGROUP)
fn pool(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
    let i = flat_index(gid, groups);
    if (i >= word(0u)) { return; }
    var rem = i;
{{position}}
    let c = rem % word(1u);
    let n = rem / word(1u);
    let xc = iword(2u) + i32(n) * iword(3u) + i32(c) * iword(4u);
{{start}}
{{taps}}
{{finish}}
}
