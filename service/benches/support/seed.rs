//! Seeding shared by the service benchmarks (`ingest`'s list part and `pages`): findings made
//! by SQL, each column drawn independently.

/// Column k of row g: an independent pseudo-random pick in 1..=n (a plain `g % n` per column
/// would correlate the columns, which real findings do not).
pub const PICK_FN: &str = "CREATE FUNCTION pg_temp.pick(g int, k int, n int) RETURNS int IMMUTABLE LANGUAGE sql
         AS $$ SELECT 1 + ((hashint4(g * 16 + k)::bigint & 2147483647) % n)::int $$";

/// `$1` findings over 12 opcodes, 4 types, 7 modifier sets, 9 classes, 6 sms (one NULL), 70 % `new`,
/// last seen spread over 30 days. Needs [`PICK_FN`] first.
pub const INSERT_FINDINGS: &str = "INSERT INTO findings (signature, instruction, opcode, type, modifiers, class, operand_classes, sm, status,
                               first_seen, last_seen, occurrences, reproducers)
         SELECT instr || '~' || class || '~' || ops || '~' || coalesce('sm' || sm, 'sm-') || '~' || g,
                instr, opcode, type, mods, class, ops, sm, status,
                seen - interval '3 days', seen, 1 + g % 50, 1
         FROM (
           SELECT g, opcode, type, mods, class, ops, sm, status, seen,
                  opcode || CASE WHEN cardinality(mods) > 0 THEN '.' || array_to_string(mods, '.') ELSE '' END || '.' || type AS instr
           FROM (
             SELECT g,
               (ARRAY['add','sub','mul','fma','div','sqrt','rcp','min','max','ex2','lg2','cvt'])[pg_temp.pick(g, 1, 12)] AS opcode,
               (ARRAY['f32','f64','f16','bf16'])[pg_temp.pick(g, 2, 4)] AS type,
               string_to_array((ARRAY['rn','rz','rm','rp','rn.ftz','rz.ftz','approx.ftz'])[pg_temp.pick(g, 3, 7)], '.') AS mods,
               (ARRAY['rounding','ftz','signed-zero','nan-payload','nan-vs-number','sat','bound-exceeded','special-case-table','gross'])[pg_temp.pick(g, 4, 9)] AS class,
               (ARRAY['normal.normal','normal.subnormal','subnormal.subnormal','zero.normal','inf.normal','nan.normal'])[pg_temp.pick(g, 5, 6)] AS ops,
               (ARRAY[80,86,89,90,100,NULL])[pg_temp.pick(g, 6, 6)] AS sm,
               CASE WHEN pg_temp.pick(g, 7, 100) <= 70 THEN 'new' WHEN pg_temp.pick(g, 7, 100) <= 80 THEN 'confirmed-hardware'
                    WHEN pg_temp.pick(g, 7, 100) <= 85 THEN 'interpreter-bug' WHEN pg_temp.pick(g, 7, 100) <= 90 THEN 'spec-ambiguity'
                    WHEN pg_temp.pick(g, 7, 100) <= 95 THEN 'wont-fix' ELSE 'fixed' END AS status,
               now() - pg_temp.pick(g, 8, 2592000) * interval '1 second' AS seen
             FROM generate_series(1, $1::int) AS g
           ) a
         ) b";
