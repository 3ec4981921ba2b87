//! The `dx.op` opcode table: opcode → operation name and function class
//! (formats.md §C). Unknown opcodes are kept: [`name`] answers
//! `unknown dx.op N` for them, never an error.

use std::borrow::Cow;

/// `dx.op.createHandle` (SM ≤ 6.5).
pub const CREATE_HANDLE: u32 = 57;
/// `dx.op.cbufferLoadLegacy`.
pub const CBUFFER_LOAD_LEGACY: u32 = 59;
/// `dx.op.bufferLoad`.
pub const BUFFER_LOAD: u32 = 68;
/// `dx.op.bufferStore`.
pub const BUFFER_STORE: u32 = 69;
/// `dx.op.bufferUpdateCounter`.
pub const BUFFER_UPDATE_COUNTER: u32 = 70;
/// `dx.op.threadId`.
pub const THREAD_ID: u32 = 93;
/// `dx.op.rawBufferLoad`.
pub const RAW_BUFFER_LOAD: u32 = 139;
/// `dx.op.rawBufferStore`.
pub const RAW_BUFFER_STORE: u32 = 140;
/// `dx.op.createHandleForLib` (libraries).
pub const CREATE_HANDLE_FOR_LIB: u32 = 160;
/// `dx.op.annotateHandle` (SM 6.6).
pub const ANNOTATE_HANDLE: u32 = 216;
/// `dx.op.createHandleFromBinding` (SM 6.6).
pub const CREATE_HANDLE_FROM_BINDING: u32 = 217;
/// `dx.op.createHandleFromHeap` (SM 6.6).
pub const CREATE_HANDLE_FROM_HEAP: u32 = 218;
/// `dx.op.rawBufferVectorLoad` (SM 6.9).
pub const RAW_BUFFER_VECTOR_LOAD: u32 = 303;
/// `dx.op.rawBufferVectorStore` (SM 6.9).
pub const RAW_BUFFER_VECTOR_STORE: u32 = 304;
/// Preview `dx.op.matVecMul`.
pub const MAT_VEC_MUL: u32 = 305;
/// Preview `dx.op.matVecMulAdd`.
pub const MAT_VEC_MUL_ADD: u32 = 306;
/// Preview `dx.op.outerProductAccumulate`.
pub const OUTER_PRODUCT_ACCUMULATE: u32 = 307;
/// Preview `dx.op.vectorAccumulate`.
pub const VECTOR_ACCUMULATE: u32 = 308;

/// Base of the experimental opcode table (TableID 32768).
pub const EXPERIMENTAL: u32 = 0x8000_0000;

/// SM 6.10 LinAlg ops (experimental table, `EXPERIMENTAL | n`).
pub mod linalg {
    use super::EXPERIMENTAL;
    /// `linAlgMatrixMultiplyAccumulate`.
    pub const MULTIPLY_ACCUMULATE: u32 = EXPERIMENTAL | 11;
    /// `linAlgFillMatrix`.
    pub const FILL_MATRIX: u32 = EXPERIMENTAL | 12;
    /// `linAlgCopyConvertMatrix`.
    pub const COPY_CONVERT_MATRIX: u32 = EXPERIMENTAL | 13;
    /// `linAlgMatrixLoadFromDescriptor`.
    pub const LOAD_FROM_DESCRIPTOR: u32 = EXPERIMENTAL | 14;
    /// `linAlgMatrixLoadFromMemory` (groupshared; offset/stride in elements).
    pub const LOAD_FROM_MEMORY: u32 = EXPERIMENTAL | 15;
    /// `linAlgMatrixLength`.
    pub const LENGTH: u32 = EXPERIMENTAL | 16;
    /// `linAlgMatrixGetCoordinate`.
    pub const GET_COORDINATE: u32 = EXPERIMENTAL | 17;
    /// `linAlgMatrixGetElement`.
    pub const GET_ELEMENT: u32 = EXPERIMENTAL | 18;
    /// `linAlgMatrixSetElement`.
    pub const SET_ELEMENT: u32 = EXPERIMENTAL | 19;
    /// `linAlgMatrixStoreToDescriptor`.
    pub const STORE_TO_DESCRIPTOR: u32 = EXPERIMENTAL | 20;
    /// `linAlgMatrixStoreToMemory` (groupshared).
    pub const STORE_TO_MEMORY: u32 = EXPERIMENTAL | 21;
    /// `linAlgMatrixQueryAccumulatorLayout`.
    pub const QUERY_ACCUMULATOR_LAYOUT: u32 = EXPERIMENTAL | 22;
    /// `linAlgMatrixMultiply`.
    pub const MULTIPLY: u32 = EXPERIMENTAL | 23;
    /// `linAlgMatrixAccumulate`.
    pub const ACCUMULATE: u32 = EXPERIMENTAL | 24;
    /// `linAlgMatVecMul`.
    pub const MAT_VEC_MUL: u32 = EXPERIMENTAL | 25;
    /// `linAlgMatVecMulAdd`.
    pub const MAT_VEC_MUL_ADD: u32 = EXPERIMENTAL | 26;
    /// `linAlgMatrixAccumulateToDescriptor`.
    pub const ACCUMULATE_TO_DESCRIPTOR: u32 = EXPERIMENTAL | 27;
    /// `linAlgMatrixAccumulateToMemory` (groupshared).
    pub const ACCUMULATE_TO_MEMORY: u32 = EXPERIMENTAL | 28;
    /// `linAlgMatrixOuterProduct`.
    pub const OUTER_PRODUCT: u32 = EXPERIMENTAL | 29;
    /// `linAlgConvert`.
    pub const CONVERT: u32 = EXPERIMENTAL | 30;
    /// `linAlgVectorAccumulateToDescriptor`.
    pub const VECTOR_ACCUMULATE_TO_DESCRIPTOR: u32 = EXPERIMENTAL | 31;
}

/// What the table knows about one opcode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpInfo {
    /// Opcode (`0x8000_00nn` for the experimental table).
    pub opcode: u32,
    /// Operation name as DXC's `OpCode` enum spells it (`RawBufferVectorLoad`).
    pub name: &'static str,
    /// Function class, the stem of `dx.op.<class>[.<overload>]` (`rawBufferVectorLoad`).
    pub class: &'static str,
}

/// Core table (opcode, name, class). Sources: DXC `DxilConstants.h` `OpCode` /
/// `OpCodeClass` and formats.md §C.2–C.4.
#[rustfmt::skip]
static CORE: &[(u32, &str, &str)] = &[
    (0, "TempRegLoad", "tempRegLoad"), (1, "TempRegStore", "tempRegStore"),
    (2, "MinPrecXRegLoad", "minPrecXRegLoad"), (3, "MinPrecXRegStore", "minPrecXRegStore"),
    (4, "LoadInput", "loadInput"), (5, "StoreOutput", "storeOutput"),
    (6, "FAbs", "unary"), (7, "Saturate", "unary"),
    (8, "IsNaN", "isSpecialFloat"), (9, "IsInf", "isSpecialFloat"), (10, "IsFinite", "isSpecialFloat"),
    (11, "IsNormal", "isSpecialFloat"),
    (12, "Cos", "unary"), (13, "Sin", "unary"), (14, "Tan", "unary"), (15, "Acos", "unary"),
    (16, "Asin", "unary"), (17, "Atan", "unary"), (18, "Hcos", "unary"), (19, "Hsin", "unary"),
    (20, "Htan", "unary"), (21, "Exp", "unary"), (22, "Frc", "unary"), (23, "Log", "unary"),
    (24, "Sqrt", "unary"), (25, "Rsqrt", "unary"), (26, "Round_ne", "unary"), (27, "Round_ni", "unary"),
    (28, "Round_pi", "unary"), (29, "Round_z", "unary"),
    (30, "Bfrev", "unaryBits"), (31, "Countbits", "unaryBits"), (32, "FirstbitLo", "unaryBits"),
    (33, "FirstbitHi", "unaryBits"), (34, "FirstbitSHi", "unaryBits"),
    (35, "FMax", "binary"), (36, "FMin", "binary"), (37, "IMax", "binary"), (38, "IMin", "binary"),
    (39, "UMax", "binary"), (40, "UMin", "binary"),
    (41, "IMul", "binaryWithTwoOuts"), (42, "UMul", "binaryWithTwoOuts"), (43, "UDiv", "binaryWithTwoOuts"),
    (44, "UAddc", "binaryWithCarryOrBorrow"), (45, "USubb", "binaryWithCarryOrBorrow"),
    (46, "FMad", "tertiary"), (47, "Fma", "tertiary"), (48, "IMad", "tertiary"), (49, "UMad", "tertiary"),
    (50, "Msad", "tertiary"), (51, "Ibfe", "tertiary"), (52, "Ubfe", "tertiary"),
    (53, "Bfi", "quaternary"),
    (54, "Dot2", "dot2"), (55, "Dot3", "dot3"), (56, "Dot4", "dot4"),
    (57, "CreateHandle", "createHandle"), (58, "CBufferLoad", "cbufferLoad"),
    (59, "CBufferLoadLegacy", "cbufferLoadLegacy"),
    (60, "Sample", "sample"), (61, "SampleBias", "sampleBias"), (62, "SampleLevel", "sampleLevel"),
    (63, "SampleGrad", "sampleGrad"), (64, "SampleCmp", "sampleCmp"),
    (65, "SampleCmpLevelZero", "sampleCmpLevelZero"),
    (66, "TextureLoad", "textureLoad"), (67, "TextureStore", "textureStore"),
    (68, "BufferLoad", "bufferLoad"), (69, "BufferStore", "bufferStore"),
    (70, "BufferUpdateCounter", "bufferUpdateCounter"), (71, "CheckAccessFullyMapped", "checkAccessFullyMapped"),
    (72, "GetDimensions", "getDimensions"), (73, "TextureGather", "textureGather"),
    (74, "TextureGatherCmp", "textureGatherCmp"),
    (75, "Texture2DMSGetSamplePosition", "texture2DMSGetSamplePosition"),
    (76, "RenderTargetGetSamplePosition", "renderTargetGetSamplePosition"),
    (77, "RenderTargetGetSampleCount", "renderTargetGetSampleCount"),
    (78, "AtomicBinOp", "atomicBinOp"), (79, "AtomicCompareExchange", "atomicCompareExchange"),
    (80, "Barrier", "barrier"), (81, "CalculateLOD", "calculateLOD"), (82, "Discard", "discard"),
    (83, "DerivCoarseX", "unary"), (84, "DerivCoarseY", "unary"), (85, "DerivFineX", "unary"),
    (86, "DerivFineY", "unary"),
    (87, "EvalSnapped", "evalSnapped"), (88, "EvalSampleIndex", "evalSampleIndex"),
    (89, "EvalCentroid", "evalCentroid"), (90, "SampleIndex", "sampleIndex"), (91, "Coverage", "coverage"),
    (92, "InnerCoverage", "innerCoverage"),
    (93, "ThreadId", "threadId"), (94, "GroupId", "groupId"), (95, "ThreadIdInGroup", "threadIdInGroup"),
    (96, "FlattenedThreadIdInGroup", "flattenedThreadIdInGroup"),
    (97, "EmitStream", "emitStream"), (98, "CutStream", "cutStream"),
    (99, "EmitThenCutStream", "emitThenCutStream"), (100, "GSInstanceID", "gsInstanceID"),
    (101, "MakeDouble", "makeDouble"), (102, "SplitDouble", "splitDouble"),
    (103, "LoadOutputControlPoint", "loadOutputControlPoint"), (104, "LoadPatchConstant", "loadPatchConstant"),
    (105, "DomainLocation", "domainLocation"), (106, "StorePatchConstant", "storePatchConstant"),
    (107, "OutputControlPointID", "outputControlPointID"), (108, "PrimitiveID", "primitiveID"),
    (109, "CycleCounterLegacy", "cycleCounterLegacy"),
    (110, "WaveIsFirstLane", "waveIsFirstLane"), (111, "WaveGetLaneIndex", "waveGetLaneIndex"),
    (112, "WaveGetLaneCount", "waveGetLaneCount"), (113, "WaveAnyTrue", "waveAnyTrue"),
    (114, "WaveAllTrue", "waveAllTrue"), (115, "WaveActiveAllEqual", "waveActiveAllEqual"),
    (116, "WaveActiveBallot", "waveActiveBallot"), (117, "WaveReadLaneAt", "waveReadLaneAt"),
    (118, "WaveReadLaneFirst", "waveReadLaneFirst"), (119, "WaveActiveOp", "waveActiveOp"),
    (120, "WaveActiveBit", "waveActiveBit"), (121, "WavePrefixOp", "wavePrefixOp"),
    (122, "QuadReadLaneAt", "quadReadLaneAt"), (123, "QuadOp", "quadOp"),
    (124, "BitcastI16toF16", "bitcastI16toF16"), (125, "BitcastF16toI16", "bitcastF16toI16"),
    (126, "BitcastI32toF32", "bitcastI32toF32"), (127, "BitcastF32toI32", "bitcastF32toI32"),
    (128, "BitcastI64toF64", "bitcastI64toF64"), (129, "BitcastF64toI64", "bitcastF64toI64"),
    (130, "LegacyF32ToF16", "legacyF32ToF16"), (131, "LegacyF16ToF32", "legacyF16ToF32"),
    (132, "LegacyDoubleToFloat", "legacyDoubleToFloat"), (133, "LegacyDoubleToSInt32", "legacyDoubleToSInt32"),
    (134, "LegacyDoubleToUInt32", "legacyDoubleToUInt32"),
    (135, "WaveAllBitCount", "waveAllOp"), (136, "WavePrefixBitCount", "wavePrefixOp"),
    (137, "AttributeAtVertex", "attributeAtVertex"), (138, "ViewID", "viewID"),
    (139, "RawBufferLoad", "rawBufferLoad"), (140, "RawBufferStore", "rawBufferStore"),
    (141, "InstanceID", "instanceID"), (142, "InstanceIndex", "instanceIndex"), (143, "HitKind", "hitKind"),
    (144, "RayFlags", "rayFlags"), (145, "DispatchRaysIndex", "dispatchRaysIndex"),
    (146, "DispatchRaysDimensions", "dispatchRaysDimensions"), (147, "WorldRayOrigin", "worldRayOrigin"),
    (148, "WorldRayDirection", "worldRayDirection"), (149, "ObjectRayOrigin", "objectRayOrigin"),
    (150, "ObjectRayDirection", "objectRayDirection"), (151, "ObjectToWorld", "objectToWorld"),
    (152, "WorldToObject", "worldToObject"), (153, "RayTMin", "rayTMin"), (154, "RayTCurrent", "rayTCurrent"),
    (155, "IgnoreHit", "ignoreHit"), (156, "AcceptHitAndEndSearch", "acceptHitAndEndSearch"),
    (157, "TraceRay", "traceRay"), (158, "ReportHit", "reportHit"), (159, "CallShader", "callShader"),
    (160, "CreateHandleForLib", "createHandleForLib"), (161, "PrimitiveIndex", "primitiveIndex"),
    (162, "Dot2AddHalf", "dot2AddHalf"), (163, "Dot4AddI8Packed", "dot4AddPacked"),
    (164, "Dot4AddU8Packed", "dot4AddPacked"), (165, "WaveMatch", "waveMatch"),
    (166, "WaveMultiPrefixOp", "waveMultiPrefixOp"), (167, "WaveMultiPrefixBitCount", "waveMultiPrefixBitCount"),
    (168, "SetMeshOutputCounts", "setMeshOutputCounts"), (169, "EmitIndices", "emitIndices"),
    (170, "GetMeshPayload", "getMeshPayload"), (171, "StoreVertexOutput", "storeVertexOutput"),
    (172, "StorePrimitiveOutput", "storePrimitiveOutput"), (173, "DispatchMesh", "dispatchMesh"),
    (174, "WriteSamplerFeedback", "writeSamplerFeedback"), (175, "WriteSamplerFeedbackBias", "writeSamplerFeedbackBias"),
    (176, "WriteSamplerFeedbackLevel", "writeSamplerFeedbackLevel"),
    (177, "WriteSamplerFeedbackGrad", "writeSamplerFeedbackGrad"),
    (178, "AllocateRayQuery", "allocateRayQuery"), (179, "RayQuery_TraceRayInline", "rayQuery_TraceRayInline"),
    (180, "RayQuery_Proceed", "rayQuery_Proceed"), (181, "RayQuery_Abort", "rayQuery_Abort"),
    (182, "RayQuery_CommitNonOpaqueTriangleHit", "rayQuery_CommitNonOpaqueTriangleHit"),
    (183, "RayQuery_CommitProceduralPrimitiveHit", "rayQuery_CommitProceduralPrimitiveHit"),
    (184, "RayQuery_CommittedStatus", "rayQuery_StateScalar"), (185, "RayQuery_CandidateType", "rayQuery_StateScalar"),
    (186, "RayQuery_CandidateObjectToWorld3x4", "rayQuery_StateMatrix"),
    (187, "RayQuery_CandidateWorldToObject3x4", "rayQuery_StateMatrix"),
    (188, "RayQuery_CommittedObjectToWorld3x4", "rayQuery_StateMatrix"),
    (189, "RayQuery_CommittedWorldToObject3x4", "rayQuery_StateMatrix"),
    (190, "RayQuery_CandidateProceduralPrimitiveNonOpaque", "rayQuery_StateScalar"),
    (191, "RayQuery_CandidateTriangleFrontFace", "rayQuery_StateScalar"),
    (192, "RayQuery_CommittedTriangleFrontFace", "rayQuery_StateScalar"),
    (193, "RayQuery_CandidateTriangleBarycentrics", "rayQuery_StateVector"),
    (194, "RayQuery_CommittedTriangleBarycentrics", "rayQuery_StateVector"),
    (195, "RayQuery_RayFlags", "rayQuery_StateScalar"), (196, "RayQuery_WorldRayOrigin", "rayQuery_StateVector"),
    (197, "RayQuery_WorldRayDirection", "rayQuery_StateVector"), (198, "RayQuery_RayTMin", "rayQuery_StateScalar"),
    (199, "RayQuery_CandidateTriangleRayT", "rayQuery_StateScalar"),
    (200, "RayQuery_CommittedRayT", "rayQuery_StateScalar"),
    (201, "RayQuery_CandidateInstanceIndex", "rayQuery_StateScalar"),
    (202, "RayQuery_CandidateInstanceID", "rayQuery_StateScalar"),
    (203, "RayQuery_CandidateGeometryIndex", "rayQuery_StateScalar"),
    (204, "RayQuery_CandidatePrimitiveIndex", "rayQuery_StateScalar"),
    (205, "RayQuery_CandidateObjectRayOrigin", "rayQuery_StateVector"),
    (206, "RayQuery_CandidateObjectRayDirection", "rayQuery_StateVector"),
    (207, "RayQuery_CommittedInstanceIndex", "rayQuery_StateScalar"),
    (208, "RayQuery_CommittedInstanceID", "rayQuery_StateScalar"),
    (209, "RayQuery_CommittedGeometryIndex", "rayQuery_StateScalar"),
    (210, "RayQuery_CommittedPrimitiveIndex", "rayQuery_StateScalar"),
    (211, "RayQuery_CommittedObjectRayOrigin", "rayQuery_StateVector"),
    (212, "RayQuery_CommittedObjectRayDirection", "rayQuery_StateVector"),
    (213, "GeometryIndex", "geometryIndex"),
    (214, "RayQuery_CandidateInstanceContributionToHitGroupIndex", "rayQuery_StateScalar"),
    (215, "RayQuery_CommittedInstanceContributionToHitGroupIndex", "rayQuery_StateScalar"),
    (216, "AnnotateHandle", "annotateHandle"), (217, "CreateHandleFromBinding", "createHandleFromBinding"),
    (218, "CreateHandleFromHeap", "createHandleFromHeap"), (219, "Unpack4x8", "unpack4x8"),
    (220, "Pack4x8", "pack4x8"), (221, "IsHelperLane", "isHelperLane"), (222, "QuadVote", "quadVote"),
    (223, "TextureGatherRaw", "textureGatherRaw"), (224, "SampleCmpLevel", "sampleCmpLevel"),
    (225, "TextureStoreSample", "textureStoreSample"),
    (238, "AllocateNodeOutputRecords", "allocateNodeOutputRecords"), (239, "GetNodeRecordPtr", "getNodeRecordPtr"),
    (240, "IncrementOutputCount", "incrementOutputCount"), (241, "OutputComplete", "outputComplete"),
    (242, "GetInputRecordCount", "getInputRecordCount"),
    (243, "FinishedCrossGroupSharing", "finishedCrossGroupSharing"),
    (244, "BarrierByMemoryType", "barrierByMemoryType"), (245, "BarrierByMemoryHandle", "barrierByMemoryHandle"),
    (246, "BarrierByNodeRecordHandle", "barrierByNodeRecordHandle"),
    (247, "CreateNodeOutputHandle", "createNodeOutputHandle"), (248, "IndexNodeHandle", "indexNodeHandle"),
    (249, "AnnotateNodeHandle", "annotateNodeHandle"),
    (250, "CreateNodeInputRecordHandle", "createNodeInputRecordHandle"),
    (251, "AnnotateNodeRecordHandle", "annotateNodeRecordHandle"), (252, "NodeOutputIsValid", "nodeOutputIsValid"),
    (253, "GetRemainingRecursionLevels", "getRemainingRecursionLevels"),
    (254, "SampleCmpGrad", "sampleCmpGrad"), (255, "SampleCmpBias", "sampleCmpBias"),
    (256, "StartVertexLocation", "startVertexLocation"), (257, "StartInstanceLocation", "startInstanceLocation"),
    (303, "RawBufferVectorLoad", "rawBufferVectorLoad"), (304, "RawBufferVectorStore", "rawBufferVectorStore"),
    (305, "MatVecMul", "matVecMul"), (306, "MatVecMulAdd", "matVecMulAdd"),
    (307, "OuterProductAccumulate", "outerProductAccumulate"), (308, "VectorAccumulate", "vectorAccumulate"),
];

/// Experimental table (n, name, class), formats.md §C.4.
#[rustfmt::skip]
static EXPERIMENTAL_OPS: &[(u32, &str, &str)] = &[
    (11, "LinAlgMatrixMultiplyAccumulate", "linAlgMatrixMultiplyAccumulate"),
    (12, "LinAlgFillMatrix", "linAlgFillMatrix"),
    (13, "LinAlgCopyConvertMatrix", "linAlgCopyConvertMatrix"),
    (14, "LinAlgMatrixLoadFromDescriptor", "linAlgMatrixLoadFromDescriptor"),
    (15, "LinAlgMatrixLoadFromMemory", "linAlgMatrixLoadFromMemory"),
    (16, "LinAlgMatrixLength", "linAlgMatrixLength"),
    (17, "LinAlgMatrixGetCoordinate", "linAlgMatrixGetCoordinate"),
    (18, "LinAlgMatrixGetElement", "linAlgMatrixGetElement"),
    (19, "LinAlgMatrixSetElement", "linAlgMatrixSetElement"),
    (20, "LinAlgMatrixStoreToDescriptor", "linAlgMatrixStoreToDescriptor"),
    (21, "LinAlgMatrixStoreToMemory", "linAlgMatrixStoreToMemory"),
    (22, "LinAlgMatrixQueryAccumulatorLayout", "linAlgMatrixQueryAccumulatorLayout"),
    (23, "LinAlgMatrixMultiply", "linAlgMatrixMultiply"),
    (24, "LinAlgMatrixAccumulate", "linAlgMatrixAccumulate"),
    (25, "LinAlgMatVecMul", "linAlgMatVecMul"),
    (26, "LinAlgMatVecMulAdd", "linAlgMatVecMulAdd"),
    (27, "LinAlgMatrixAccumulateToDescriptor", "linAlgMatrixAccumulateToDescriptor"),
    (28, "LinAlgMatrixAccumulateToMemory", "linAlgMatrixAccumulateToMemory"),
    (29, "LinAlgMatrixOuterProduct", "linAlgMatrixOuterProduct"),
    (30, "LinAlgConvert", "linAlgConvert"),
    (31, "LinAlgVectorAccumulateToDescriptor", "linAlgVectorAccumulateToDescriptor"),
];

/// Looks an opcode up.
pub fn info(opcode: u32) -> Option<OpInfo> {
    let (table, key) =
        if opcode & EXPERIMENTAL != 0 { (EXPERIMENTAL_OPS, opcode & !EXPERIMENTAL) } else { (CORE, opcode) };
    let i = table.binary_search_by_key(&key, |e| e.0).ok()?;
    let (_, name, class) = *table.get(i)?;
    Some(OpInfo { opcode, name, class })
}

/// The display name of an opcode: its class stem for known ops whose class is
/// their own (`rawBufferVectorLoad`), the enum name otherwise (`Sin`), or
/// `unknown dx.op N` (`unknown dx.op 0x80000021` for the experimental table).
pub fn name(opcode: u32) -> Cow<'static, str> {
    match info(opcode) {
        Some(i) if i.class.eq_ignore_ascii_case(i.name) => Cow::Borrowed(i.class),
        Some(i) => Cow::Borrowed(i.name),
        None if opcode & EXPERIMENTAL != 0 => Cow::Owned(format!("unknown dx.op 0x{opcode:08X}")),
        None => Cow::Owned(format!("unknown dx.op {opcode}")),
    }
}

/// True for SM 6.10 LinAlg ops.
pub fn is_linalg(opcode: u32) -> bool {
    opcode & EXPERIMENTAL != 0 && (11..=31).contains(&(opcode & !EXPERIMENTAL))
}

/// The class stem and overload suffixes of a `dx.op.*` function name:
/// `dx.op.rawBufferVectorLoad.v8f32` → (`rawBufferVectorLoad`, `["v8f32"]`).
pub fn split_callee(name: &str) -> Option<(&str, Vec<&str>)> {
    let rest = name.strip_prefix("dx.op.")?;
    let mut parts = rest.split('.');
    let class = parts.next()?;
    Some((class, parts.collect()))
}

/// A vector overload `v<N><t>` (`v8f32`, `v7f16`): (count, component bytes, float).
pub fn parse_vector_overload(s: &str) -> Option<(u32, u32, bool)> {
    let rest = s.strip_prefix('v')?;
    let digits = rest.bytes().take_while(|b| b.is_ascii_digit()).count();
    let count: u32 = rest.get(..digits)?.parse().ok()?;
    let (float, bits) = scalar_overload(rest.get(digits..)?)?;
    Some((count, bits / 8, float))
}

/// A scalar overload name (`f16`, `i32`, ...): (float, bits).
pub fn scalar_overload(s: &str) -> Option<(bool, u32)> {
    let float = match s.as_bytes().first()? {
        b'f' => true,
        b'i' => false,
        _ => return None,
    };
    let bits: u32 = s.get(1..)?.parse().ok()?;
    matches!(bits, 1 | 8 | 16 | 32 | 64).then_some((float, bits))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted() {
        assert!(CORE.windows(2).all(|w| w[0].0 < w[1].0));
        assert!(EXPERIMENTAL_OPS.windows(2).all(|w| w[0].0 < w[1].0));
    }

    #[test]
    fn names() {
        assert_eq!(name(57), "createHandle");
        assert_eq!(name(303), "rawBufferVectorLoad");
        assert_eq!(name(13), "Sin");
        assert_eq!(info(13).map(|i| i.class), Some("unary"));
        assert_eq!(name(linalg::LOAD_FROM_DESCRIPTOR), "linAlgMatrixLoadFromDescriptor");
        assert_eq!(linalg::LOAD_FROM_DESCRIPTOR as i32, -2147483634);
        assert_eq!(name(999), "unknown dx.op 999");
        assert_eq!(name(EXPERIMENTAL | 40), "unknown dx.op 0x80000028");
        assert!(is_linalg(linalg::VECTOR_ACCUMULATE_TO_DESCRIPTOR));
        assert!(!is_linalg(EXPERIMENTAL | 3));
    }

    #[test]
    fn overloads() {
        assert_eq!(split_callee("dx.op.rawBufferVectorLoad.v8f32"), Some(("rawBufferVectorLoad", vec!["v8f32"])));
        assert_eq!(parse_vector_overload("v8f32"), Some((8, 4, true)));
        assert_eq!(parse_vector_overload("v7f16"), Some((7, 2, true)));
        assert_eq!(parse_vector_overload("v128i64"), Some((128, 8, false)));
        assert_eq!(parse_vector_overload("mC4M4N4U0S0"), None);
        assert_eq!(parse_vector_overload("v"), None);
    }
}
