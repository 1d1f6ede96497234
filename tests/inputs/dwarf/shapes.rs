// A Rust unit for the DWARF loader: its types are excluded by default (--lang-exclude rust), as
// pahole does, and included with --lang-exclude ''. no_std, so the object links with plain C.
#![no_std]

#[repr(C)]
pub struct RustTriangle {
    pub sides: [u32; 3],
    pub scale: u64,
}

#[no_mangle]
pub extern "C" fn rust_perimeter(triangle: &RustTriangle) -> u64 {
    let sum = triangle.sides.iter().fold(0u64, |acc, &side| acc.wrapping_add(side as u64));
    sum.wrapping_mul(triangle.scale)
}
