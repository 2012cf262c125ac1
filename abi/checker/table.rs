//! The Rust side of the comparison: what `abi/generated/rust_table.rs` fills in from the
//! crate (size_of, align_of, offset_of!, the constants, the enums' known values).

/// A mirrored struct as Rust lays it out.
#[derive(Debug, Clone)]
pub struct RustStruct {
    /// C tag (the manifest's key).
    pub c: &'static str,
    /// Rust path.
    pub path: &'static str,
    pub size: usize,
    pub align: usize,
    pub fields: Vec<RustField>,
}

/// A field as Rust lays it out.
#[derive(Debug, Clone)]
pub struct RustField {
    /// Rust field name.
    pub name: &'static str,
    pub offset: usize,
    pub size: usize,
    /// `core::any::type_name` of the field's type.
    pub ty: &'static str,
}

/// A constant's value on the Rust side.
#[derive(Debug, Clone)]
pub struct RustValue {
    /// Rust path of the constant (the manifest's key).
    pub path: &'static str,
    pub value: i128,
    /// Width and signedness of the Rust type: the C value is compared as converted to it.
    pub bits: u32,
    pub signed: bool,
}

/// The primitive integer types a constant can have.
pub trait Int: Copy {
    const BITS: u32;
    const SIGNED: bool;
    fn to_i128(self) -> i128;
}

macro_rules! int {
    ($($t:ty => $signed:expr),*) => {$(
        impl Int for $t {
            const BITS: u32 = <$t>::BITS;
            const SIGNED: bool = $signed;
            fn to_i128(self) -> i128 {
                self as i128
            }
        }
    )*};
}
int!(u8 => false, u16 => false, u32 => false, u64 => false, usize => false,
     i8 => true, i16 => true, i32 => true, i64 => true, isize => true);

/// A constant's value.
pub fn value<T: Int>(path: &'static str, v: T) -> RustValue {
    RustValue {
        path,
        value: v.to_i128(),
        bits: T::BITS,
        signed: T::SIGNED,
    }
}

/// A member of an enum or flags type.
pub fn member<T: Int>(name: String, v: T, c_name: Option<&'static str>) -> RustMember {
    RustMember {
        name,
        value: v.to_i128(),
        bits: T::BITS,
        signed: T::SIGNED,
        c_name,
    }
}

/// `c` converted to an integer of `bits` bits (as C converts on assignment).
pub fn convert(c: i128, bits: u32, signed: bool) -> i128 {
    if bits >= 128 {
        return c;
    }
    let m = c & ((1i128 << bits) - 1);
    if signed && m >> (bits - 1) & 1 == 1 {
        m - (1i128 << bits)
    } else {
        m
    }
}

/// A member of an enum or flags type, as the type itself lists it.
#[derive(Debug, Clone)]
pub struct RustMember {
    /// Variant or flag name.
    pub name: String,
    pub value: i128,
    pub bits: u32,
    pub signed: bool,
    /// `c_name()` of an open enum's variant.
    pub c_name: Option<&'static str>,
}

/// An enum (`KNOWN`) or flags (`all().iter_names()`) type.
#[derive(Debug, Clone)]
pub struct RustEnum {
    /// Rust path of the type (the manifest's key).
    pub path: &'static str,
    pub members: Vec<RustMember>,
}

/// Everything the generated table reports.
#[derive(Debug, Clone, Default)]
pub struct RustTable {
    pub structs: Vec<RustStruct>,
    pub values: Vec<RustValue>,
    pub enums: Vec<RustEnum>,
}

impl RustTable {
    pub fn struct_by_c(&self, c: &str) -> Option<&RustStruct> {
        self.structs.iter().find(|s| s.c == c)
    }
    /// The struct of this C tag and Rust path (a C struct may have several Rust views,
    /// one per member of a union it contains).
    pub fn struct_view(&self, c: &str, path: &str) -> Option<&RustStruct> {
        self.structs.iter().find(|s| s.c == c && s.path == path)
    }
    pub fn value(&self, path: &str) -> Option<(i128, u32, bool)> {
        self.values
            .iter()
            .find(|v| v.path == path)
            .map(|v| (v.value, v.bits, v.signed))
    }
    pub fn enum_by_path(&self, path: &str) -> Option<&RustEnum> {
        self.enums.iter().find(|e| e.path == path)
    }
}

impl RustStruct {
    /// The struct `T`'s size and alignment, with its fields.
    pub fn new<T>(c: &'static str, path: &'static str, fields: Vec<RustField>) -> RustStruct {
        RustStruct {
            c,
            path,
            size: core::mem::size_of::<T>(),
            align: core::mem::align_of::<T>(),
            fields,
        }
    }
}

/// Size and type name of a field, from a projection `|s: &T| &s.field`.
pub fn field<T, F>(name: &'static str, offset: usize, _project: fn(&T) -> &F) -> RustField {
    RustField {
        name,
        offset,
        size: core::mem::size_of::<F>(),
        ty: core::any::type_name::<F>(),
    }
}
