-- The H100 (sm_90) behaviours recorded in ../shared/hw/h100-sm90/ (README.md and findings/),
-- shipped as known divergences so that a new server starts with them marked: findings that
-- match are still counted, and shown as known (service/src/db/known.rs). Each reason quotes
-- its evidence; delete a row to see those findings as new again.
INSERT INTO known_divergences (pattern, target_pattern, reason, created_by) VALUES
('abs.f64~nan-payload~*~sm90', 'cuda*',
 'H100: abs.f64 of a NaN keeps the sign bit and quiets a signalling NaN: abs.f64 0xfff0000000000001 -> 0xfff8000000000001 (the PTX ISA text suggests only the sign changes). Evidence: ../shared/hw/h100-sm90/README.md, findings/abs.f64~nan-payload~nan~sm90.',
 'ptxfuzz (H100 recordings)'),
('ex2.approx*f16*~*~sm90', 'cuda*',
 'H100: ex2.approx.f16/.f16x2 results in the subnormal range are flushed or off by one or more units (0xce20 -> 0x0000 (-24.5 -> 0), 0xcd8c -> 0x0003 where the bound allows only 0x0004). Evidence: ../shared/hw/h100-sm90/README.md, findings/ex2.approx.f16~*.',
 'ptxfuzz (H100 recordings)'),
('tanh.approx*bf16*~bound-exceeded~*~sm90', 'cuda*',
 'H100: tanh.approx.bf16/.bf16x2 absolute error above the documented 2^-8 (0x3f3f -> 0x3f21 (0.746 -> 0.629), allowed 0x3f22..0x3f23). Evidence: ../shared/hw/h100-sm90/README.md, findings/tanh.approx.bf16~bound-exceeded~normal~sm90.',
 'ptxfuzz (H100 recordings)'),
('cos.approx*f32~bound-exceeded~*~sm90', 'cuda*',
 'H100: cos.approx.f32 one ulp past the documented 2^-20.5 absolute error inside [-2pi, 2pi] (0x409cdd4b -> 0x3e410356, 4.902 -> 0.1885). Evidence: ../shared/hw/h100-sm90/README.md, findings/cos.approx.f32~bound-exceeded~normal~sm90.',
 'ptxfuzz (H100 recordings)'),
('fma.rz*bf16*~*~sm90', 'cuda*',
 'H100, ptxas 13.5 / driver 580.159.04 (CUDA 13.0): fma.rz{.relu}.bf16{x2}, a form the PTX ISA (9.7.4.4) does not document, is computed as f16 arithmetic. Generated only with campaign --undocumented. Evidence: ../shared/hw/h100-sm90/findings/fma.rz.bf16~*, campaign-60s.tar.gz (248 of 281 findings).',
 'ptxfuzz (H100 recordings)'),
('fma.rm*bf16*~*~sm90', 'cuda*',
 'H100, ptxas 13.5 / driver 580.159.04 (CUDA 13.0): fma.rm{.relu}.bf16{x2}, a form the PTX ISA (9.7.4.4) does not document, is computed as f16 arithmetic. Generated only with campaign --undocumented. Evidence: ../shared/hw/h100-sm90/campaign-60s.tar.gz.',
 'ptxfuzz (H100 recordings)'),
('fma.rp*bf16*~*~sm90', 'cuda*',
 'H100, ptxas 13.5 / driver 580.159.04 (CUDA 13.0): fma.rp{.relu}.bf16{x2}, a form the PTX ISA (9.7.4.4) does not document, is computed as f16 arithmetic. Generated only with campaign --undocumented. Evidence: ../shared/hw/h100-sm90/campaign-60s.tar.gz.',
 'ptxfuzz (H100 recordings)');
