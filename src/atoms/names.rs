//! `named_enum!`: closed enums of the seed's names (modes, types, spaces),
//! each with `ALL`, `name()` and `parse()` (a leading `.` is accepted).

/// Declares a closed enum whose variants have fixed names.
macro_rules! named_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $var:ident = $text:literal),+ $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $var),+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$var),+];

            /// The name as the seed writes it, without the leading dot.
            pub const fn name(self) -> &'static str {
                match self {
                    $($name::$var => $text),+
                }
            }

            /// Parses a name; a leading `.` is accepted.
            pub fn parse(s: &str) -> Option<$name> {
                let s = s.strip_prefix('.').unwrap_or(s);
                match s {
                    $($text => Some($name::$var),)+
                    _ => None,
                }
            }

            /// The accepted names, comma-separated (for error messages).
            pub fn names() -> String {
                let v: &[&str] = &[$($text),+];
                v.join(", ")
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use named_enum;
