// 2-D convolution (the kernel is flipped, as in scipy.signal.convolve2d) of an H x W image with a
// KH x KW kernel. One thread per output pixel, TILE x TILE threads per workgroup.
// "valid": output (H-KH+1) x (W-KW+1), pad 0. "same": output H x W, zero padding with
// pad_top = KH / 2 and pad_left = KW / 2 (centred on the full convolution, as SciPy does).
// A kernel value that meets the zero padding still counts: 0 * inf and 0 * NaN are NaN, as in
// SciPy and NumPy, so an output whose window reaches past the image over a non-finite kernel value
// is NaN (written explicitly: NaN's bits come from the host, WGSL has no NaN literal).

struct Dims { H: u32, W: u32, KH: u32, KW: u32, OH: u32, OW: u32, pad_top: u32, pad_left: u32,
              nan: u32, _p1: u32, _p2: u32, _p3: u32 }

@group(0) @binding(0) var<storage, read> image: array<f32>;
@group(0) @binding(1) var<storage, read> kern: array<f32>;
@group(0) @binding(2) var<storage, read_write> dst: array<f32>;
@group(0) @binding(3) var<uniform> dims: Dims;

const TILE: u32 = 16u;  // output pixels per workgroup side (pycore/programs.py reads it)

@compute @workgroup_size(TILE, TILE)
fn convolve2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = gid.x;
    let y = gid.y;
    if (x >= dims.OW || y >= dims.OH) { return; }
    var acc = 0.0;
    var padded_nan = false;  // a non-finite kernel value over the padding
    for (var i = 0u; i < dims.KH; i = i + 1u) {
        let iy = i32(y + i) - i32(dims.pad_top);
        let row_inside = iy >= 0 && iy < i32(dims.H);
        let krow = (dims.KH - 1u - i) * dims.KW;
        let irow = u32(max(iy, 0)) * dims.W;
        for (var j = 0u; j < dims.KW; j = j + 1u) {
            let ix = i32(x + j) - i32(dims.pad_left);
            let k = kern[krow + dims.KW - 1u - j];
            if (!row_inside || ix < 0 || ix >= i32(dims.W)) {
                padded_nan = padded_nan || (bitcast<u32>(k) & 0x7fffffffu) >= 0x7f800000u;
                continue;
            }
            acc = acc + image[irow + u32(ix)] * k;
        }
    }
    dst[y * dims.OW + x] = select(acc, bitcast<f32>(dims.nan), padded_nan);
}
