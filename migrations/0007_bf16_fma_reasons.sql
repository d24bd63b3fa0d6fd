-- The reasons of the three undocumented bf16 fma known divergences of 0005 said "computed as
-- f16 arithmetic" for the scalar and the packed forms alike. The SASS and the H100's results
-- say otherwise for the packed ones (docs/triage.md, "Why two clusters"): ptxas 13.5 lowers
-- fma.{rz,rm,rp}{.relu}.bf16 to HADD2.F32 (the bits read as f16), FFMA in the form's mode and
-- F2FP.F16.F32 (to nearest, .relu dropped), and fma.{rz,rm,rp}{.relu}.bf16x2 to
-- HFMA2.MMA.BF16_V2{.RELU} (bf16 to nearest, the mode dropped). Only rows still carrying the
-- shipped text are changed: an operator's edit stays.
UPDATE known_divergences
SET reason = format(
    'H100, ptxas 13.5 / driver 580.159.04 (CUDA 13.0): fma.%s{.relu}.bf16 and .bf16x2, forms the PTX ISA (9.7.4.4) does not document. The scalar form reads its operands as f16, computes in f32 rounding %s and rounds to f16 to nearest (.relu dropped; SASS HADD2.F32, FFMA.%s, F2FP.F16.F32); the packed form computes in bf16 rounded to nearest (.relu kept; SASS HFMA2.MMA.BF16_V2). Generated only with campaign --undocumented. Evidence: ../shared/hw/h100-sm90/findings/, campaign-60s.tar.gz (213 scalar and 62 packed findings of 281).',
    m.mode, m.direction, upper(m.mode))
FROM (VALUES ('rz', 'toward zero'), ('rm', 'toward -inf'), ('rp', 'toward +inf')) AS m(mode, direction)
WHERE known_divergences.pattern = 'fma.' || m.mode || '*bf16*~*~sm90'
  AND known_divergences.created_by = 'ptxfuzz (H100 recordings)'
  AND known_divergences.reason LIKE '%is computed as f16 arithmetic.%';
