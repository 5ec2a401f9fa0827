// 2-D convolution (the kernel is flipped, as in scipy.signal.convolve2d) of an H x W image with a
// KH x KW kernel. One thread per output pixel, 16 x 16 threads per workgroup.
// "valid": output (H-KH+1) x (W-KW+1), pad 0. "same": output H x W, zero padding with
// pad_top = KH / 2 and pad_left = KW / 2 (centred on the full convolution, as SciPy does).

struct Dims { H: u32, W: u32, KH: u32, KW: u32, OH: u32, OW: u32, pad_top: u32, pad_left: u32 }

@group(0) @binding(0) var<storage, read> image: array<f32>;
@group(0) @binding(1) var<storage, read> kern: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

@compute @workgroup_size(16, 16)
fn convolve2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    if (x >= dims.OW || y >= dims.OH) { return; }
    var acc = 0.0;
    for (var i = 0u; i < dims.KH; i = i + 1u) {
        let iy = i32(y + i) - i32(dims.pad_top);
        if (iy < 0 || iy >= i32(dims.H)) { continue; }
        let krow = (dims.KH - 1u - i) * dims.KW;
        let irow = u32(iy) * dims.W;
        for (var j = 0u; j < dims.KW; j = j + 1u) {
            let ix = i32(x + j) - i32(dims.pad_left);
            if (ix < 0 || ix >= i32(dims.W)) { continue; }
            acc = acc + image[irow + u32(ix)] * kern[krow + dims.KW - 1u - j];
        }
    }
    dst[y * dims.OW + x] = acc;
}
