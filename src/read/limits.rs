//! Every limit the readers and analyses enforce, in one place. A declared count
//! or size is checked against these before anything is allocated from it.

/// Largest input file read into memory (bytes).
pub const MAX_FILE_BYTES: u64 = 1 << 30;
/// Input files of at least this many bytes are mapped rather than read
/// (Linux; [`crate::read::mapped`]), so a large library costs the memory of
/// its largest decoded entry, not of the file.
pub const MAP_MIN_BYTES: u64 = 1 << 20;
/// Largest input file mapped into memory (bytes); a larger one is refused
/// (as one over [`MAX_FILE_BYTES`] is where files are read).
pub const MAX_MAPPED_FILE_BYTES: u64 = 4 << 30;
/// Input files mapped at once (one per worker thread); past it a file is read.
pub const MAX_MAPPINGS: usize = 256;
/// Largest DXBC container (DXC's own maximum, `0x8000_0000`, is far larger than any shader).
pub const MAX_CONTAINER_BYTES: u64 = 0x8000_0000;
/// Parts per container.
pub const MAX_PARTS: u32 = 1024;
/// Nesting depth of bitcode blocks.
pub const MAX_BLOCK_DEPTH: usize = 32;
/// Operands in one abbreviation definition.
pub const MAX_ABBREV_OPS: usize = 1024;
/// Abbreviations defined in one block scope.
pub const MAX_ABBREVS: usize = 4096;
/// Operands in one bitcode record (also capped by the bits left in the block).
pub const MAX_RECORD_OPS: usize = 1 << 20;
/// Record operands one bitstream may deliver in total (every operand counted,
/// literals included). Also capped at the stream's bit count plus
/// [`STREAM_OPS_SLACK`], so abbreviations of literal operands cannot turn a few
/// bits into millions of operands.
pub const MAX_STREAM_OPS: u64 = 1 << 25;
/// Operands a bitstream may deliver beyond one per bit of input.
pub const STREAM_OPS_SLACK: u64 = 1 << 20;
/// Block ids one BLOCKINFO block may describe (LLVM 3.7 writes abbreviations
/// for 3).
pub const MAX_BLOCKINFO_IDS: usize = 256;
/// Abbreviation operands live at once in one bitstream cursor (every open
/// scope's definitions plus the BLOCKINFO ones).
pub const MAX_ABBREV_STATE: usize = 1 << 20;
/// Types in a module.
pub const MAX_TYPES: usize = 1 << 20;
/// Values (globals + constants + instructions) in a module or function.
pub const MAX_VALUES: usize = 1 << 22;
/// Metadata nodes in a module.
pub const MAX_METADATA: usize = 1 << 22;
/// Basic blocks per function.
pub const MAX_BLOCKS: usize = 1 << 20;
/// Nesting depth of a type (struct, array, vector, function; a pointer counts
/// as a leaf). Deeper types are an input error, so every walk over types is bounded.
pub const MAX_TYPE_DEPTH: u32 = 256;
/// Depth of type/metadata/constant-expression recursion.
pub const MAX_RECURSION: u32 = 64;
/// SPIR-V id bound.
pub const MAX_SPIRV_ID_BOUND: u32 = 1 << 22;
/// Dataflow work (transfer-function evaluations) per module before the module
/// is reported as `analysis-budget-exceeded`.
pub const MAX_DATAFLOW_STEPS: u64 = 4_000_000;
/// Shaders taken from one file by the embedded-blob scan; past it the scan stops
/// with an `analysis-budget-exceeded` note.
pub const MAX_EMBEDDED_BLOBS: usize = 4096;
/// Work of the embedded-blob scan (SPIR-V words walked plus DXBC part entries
/// read, over all candidate headers) per byte of the file, plus a constant
/// [`EMBEDDED_SCAN_SLACK`]; past it the scan stops with a note, so its time stays
/// linear in the file size.
pub const EMBEDDED_SCAN_WORK_PER_BYTE: u64 = 2;
/// Scan work allowed on top of the per-byte allowance.
pub const EMBEDDED_SCAN_SLACK: u64 = 1 << 20;
/// Bytes of text one type or constant prints as in `dump --ir` (past it: `...`).
pub const MAX_PRINTED_ITEM: usize = 1024;
/// Constants kept in a value set before it widens to a congruence.
pub const MAX_CONST_SET: usize = 8;
/// Statements (instructions, labels, declarations, directives) in one PTX module.
pub const MAX_PTX_STATEMENTS: usize = 1 << 24;
/// Operands of one PTX instruction, elements of one vector operand, parameters of one function.
pub const MAX_PTX_OPERANDS: usize = 4096;
/// Nesting of `{ }` scopes in a PTX function body (and of operands inside operands).
pub const MAX_PTX_NESTING: usize = 64;
/// Registers declared in one PTX function (`%r<N>` ranges summed).
pub const MAX_PTX_REGISTERS: usize = 1 << 22;
/// Distinct register and symbol names read in one PTX function body (the
/// reader's name table).
pub const MAX_PTX_NAMES: usize = 1 << 22;
/// Largest `irlint.toml` read (bytes); past it the config is an input error.
pub const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// Globs in one `exclude` list or `[per-file-ignores]` table of `irlint.toml`.
pub const MAX_CONFIG_GLOBS: usize = 1024;
/// Bytes of one glob in `irlint.toml`.
pub const MAX_CONFIG_GLOB_BYTES: usize = 1024;
/// Largest `--baseline` file read (bytes).
pub const MAX_BASELINE_BYTES: u64 = 64 << 20;
/// Largest `.gitignore` (or `.git/info/exclude`) read (bytes).
pub const MAX_IGNORE_FILE_BYTES: u64 = 1 << 20;
/// Patterns kept from one ignore file; the walk stops with an error past it.
pub const MAX_IGNORE_PATTERNS: usize = 10_000;
/// Directories with ignore files above one walked path; past it the walk
/// stops with an error (each is consulted for every entry below it).
pub const MAX_IGNORE_FILES_ON_PATH: usize = 64;
/// Largest source file read from disk for a finding's line or its
/// suppressions (`.file`/`.loc`, DebugSource, HLSL `#include`s) (bytes).
pub const MAX_SOURCE_FILE_BYTES: u64 = 16 << 20;
/// Largest `irlint atoms` input (file or stdin) (bytes).
pub const MAX_ATOMS_INPUT_BYTES: u64 = 64 << 20;
/// Records read from one `irlint atoms` input; past it the input is an error.
pub const MAX_ATOMS_RECORDS: usize = 1 << 16;
/// Bytes of one input-derived name (function, resource, source file, value)
/// in a report; longer names are cut at a character boundary and end in `…`.
pub const MAX_REPORT_NAME_BYTES: usize = 1024;
/// Bytes of one source file name in a report (Linux `PATH_MAX`: no longer
/// name can be opened, so cutting it loses no source line).
pub const MAX_REPORT_PATH_BYTES: usize = 4096;
/// Bytes of one message, note, source line or IR text in a report (cut as names).
pub const MAX_REPORT_TEXT_BYTES: usize = 2048;
/// `-j` above this many threads per available core is a usage error.
pub const MAX_JOBS_PER_CORE: usize = 4;
/// `-j` is allowed up to this many threads whatever the core count.
pub const MAX_JOBS_FLOOR: usize = 64;
/// Bytes one compressed entry (a CUDA fatbin entry, a Fossilize payload) may
/// decompress to; a larger declared size is not decompressed.
pub const MAX_DECOMPRESSED_BYTES: u64 = 256 << 20;
/// Decompressed bytes per compressed byte one entry may produce (beyond
/// [`DECOMPRESSION_SLACK`]); nvcc's zstd and LZ4 reach about 10 on PTX,
/// deflate about 4 on Fossilize's varint SPIR-V.
pub const MAX_DECOMPRESSION_RATIO: u64 = 1000;
/// Decompressed bytes any entry may produce whatever its ratio.
pub const DECOMPRESSION_SLACK: u64 = 1 << 20;
/// Decompressed bytes all the entries of one file may produce together, per
/// byte of the file (plus [`MAX_DECOMPRESSED_BYTES`]); past it the file's
/// remaining entries are not decompressed (an `analysis-budget-exceeded`
/// note), so the time spent stays linear in the file size.
pub const DECOMPRESSED_PER_FILE_BYTE: u64 = 64;
/// Entries (PTX, SASS, LTO-IR, ...) read from the CUDA fatbins of one file.
pub const MAX_FATBIN_ENTRIES: usize = 1 << 20;
/// Size of one fatbin entry header (nvcc writes 64 to 128 bytes; the table
/// of a concatenated entry holds one header per member).
pub const MAX_FATBIN_ENTRY_HEADER: u64 = 1 << 20;
/// Nesting of fatbin entries: a concatenated entry (`nvcc --concat`) holds
/// member entries, which may not nest further.
pub const MAX_FATBIN_NESTING: u32 = 1;
/// Entries read from one Fossilize database.
pub const MAX_FOSSILIZE_ENTRIES: usize = 1 << 20;
/// Pipeline uses (stage, entry point) remembered per Fossilize shader module.
pub const MAX_FOSSILIZE_MODULE_USES: usize = 16;
/// Bytes of embedded source text one module keeps (SPIR-V `OpSource`,
/// `OpSourceContinued`, `DebugSource`, `DebugSourceContinued`; DXIL
/// `dx.source.contents`), counting every copy made; text past it is dropped
/// with a remark, so N instructions that share one large string cost at most
/// this much time and memory.
pub const MAX_SOURCE_TEXT_BYTES: u64 = 32 << 20;
/// Index operands of a SPIR-V access chain counted from its root variable
/// through access chains on access chains; deeper paths index past any type
/// (which nests at most [`MAX_TYPE_DEPTH`] levels) and are an input error.
pub const MAX_ACCESS_PATH: usize = MAX_TYPE_DEPTH as usize + 1;
/// Index operands of access chains one function may accumulate from their
/// roots (each chain's whole path counted); past it the module is an input
/// error, so resolving every pointer's path stays linear in the input.
pub const MAX_ACCESS_PATH_TOTAL: u64 = 1 << 22;
/// Sections of an ELF, PE or Mach-O host file whose names label embedded
/// shaders; later sections are not read.
pub const MAX_HOST_SECTIONS: usize = 1 << 16;
/// `brx.idx` branch-table edges in one PTX module (a table of N labels used
/// by M `brx.idx` counts N·M).
pub const MAX_PTX_SWITCH_EDGES: usize = 1 << 22;
/// SSA-construction work in one PTX module: one unit per single-predecessor
/// block a register read walks through, per phi operand, and 16 per phi. Past
/// it the module is an input error (a straight chain of B blocks followed by R
/// reads of distinct registers costs B·R; joins × live registers cost a phi
/// each).
pub const MAX_PTX_SSA_WORK: u64 = 1 << 24;
/// Functions (`.entry` and `.func`, definitions and prototypes) in one PTX module.
pub const MAX_PTX_FUNCTIONS: usize = 1 << 16;
