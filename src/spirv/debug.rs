//! Names for header fields and entry points, and the debug-info instruction numbers.

/// `NonSemantic.Shader.DebugInfo.100` instruction numbers used for locations.
pub mod dbg {
    /// `DebugSource(File, [Text])`.
    pub const SOURCE: u32 = 35;
    /// `DebugGlobalVariable(Name, Type, Source, Line, Column, Parent, LinkageName, Variable, Flags)`.
    pub const GLOBAL_VARIABLE: u32 = 18;
    /// `DebugSourceContinued(Text)`.
    pub const SOURCE_CONTINUED: u32 = 102;
    /// `DebugLine(Source, LineStart, LineEnd, ColumnStart, ColumnEnd)`.
    pub const LINE: u32 = 103;
    /// `DebugNoLine`.
    pub const NO_LINE: u32 = 104;
}

/// The producer text for a generator word (SPIR-V registry `spir-v.xml` tool ids).
pub fn producer(generator: u32) -> String {
    let tool = generator >> 16;
    let version = generator & 0xffff;
    let name = match tool {
        0 => "Khronos",
        1 => "LunarG",
        2 => "Valve",
        3 => "Codeplay",
        4 => "NVIDIA",
        5 => "ARM",
        6 => "Khronos LLVM/SPIR-V Translator",
        7 => "Khronos SPIR-V Tools Assembler",
        8 => "Khronos Glslang Reference Front End",
        9 => "Qualcomm",
        10 => "AMD",
        11 => "Intel",
        12 => "Imagination",
        13 => "Google Shaderc over Glslang",
        14 => "Google spiregg",
        15 => "Google rspirv",
        16 => "X-LEGEND Mesa-IR/SPIR-V Translator",
        17 => "Khronos SPIR-V Tools Linker",
        18 => "Wine VKD3D Shader Compiler",
        19 => "Tellusim Clay Shader Compiler",
        20 => "W3C WebGPU Group WHLSL Shader Translator",
        21 => "Google Clspv",
        22 => "LLVM MLIR SPIR-V Serializer",
        23 => "Google Tint Compiler",
        24 => "Google ANGLE Shader Compiler",
        25 => "Netease Games Messiah Shader Compiler",
        26 => "Xenia Emulator Microcode Translator",
        27 => "Embark Studios Rust GPU Compiler Backend",
        28 => "gfx-rs community Naga",
        29 => "Mikkosoft Productions MSP Shader Compiler",
        30 => "SpvGenTwo community SpvGenTwo SPIR-V IR Tools",
        31 => "Google Skia SkSL",
        32 => "TornadoVM Beehive SPIRV Toolkit",
        33 => "DragonJoker ShaderWriter",
        34 => "Rayan Hatout SPIRVSmith",
        35 => "Saarland University Shady",
        36 => "Taichi Graphics Taichi",
        37 => "heroseh Hero C Compiler",
        38 => "Meta SparkSL",
        39 => "SirLynix Nazara ShaderLang Compiler",
        40 => "NVIDIA Slang Compiler",
        41 => "Zig Software Foundation Zig Compiler",
        42 => "Rendong Liang spq",
        43 => "LLVM LLVM SPIR-V Backend",
        44 => "Robert Konrad Kongruent",
        45 => "Kitsunebi Games Nuvk SPIR-V Emitter and DLSL compiler",
        _ => return format!("generator {tool} version {version}"),
    };
    format!("{name} {version}")
}

/// Stage text for an `ExecutionModel`.
pub fn stage(model: u32) -> String {
    let s = match model {
        0 => "vertex",
        1 => "tessellation-control",
        2 => "tessellation-evaluation",
        3 => "geometry",
        4 => "fragment",
        5 => "compute",
        6 => "kernel",
        5267 => "task-nv",
        5268 => "mesh-nv",
        5313 => "ray-generation",
        5314 => "intersection",
        5315 => "any-hit",
        5316 => "closest-hit",
        5317 => "miss",
        5318 => "callable",
        5364 => "task",
        5365 => "mesh",
        _ => return format!("execution-model-{model}"),
    };
    s.to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn names() {
        assert_eq!(super::producer(0x0008_000b), "Khronos Glslang Reference Front End 11");
        assert_eq!(super::producer(0x1234_0001), "generator 4660 version 1");
        assert_eq!(super::stage(5), "compute");
        assert_eq!(super::stage(77), "execution-model-77");
    }
}
