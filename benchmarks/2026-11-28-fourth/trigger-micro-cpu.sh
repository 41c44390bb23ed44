#!/bin/bash
DSN=$1; N=${N:-20000}
for round in $(seq ${ROUNDS:-5}); do
for spec in ${VARIANTS}; do
  v=${spec%:*}; when=${spec#*:}
  trig="CREATE TRIGGER cap $when UPDATE ON stock FOR EACH ROW EXECUTE FUNCTION relchain.cap_$v('public.stock');"
  [ "$v" = none ] && trig=""
  out=$(psql -X -q -At "$DSN" 2>&1 <<SQL
DROP TRIGGER IF EXISTS cap ON stock;
$trig
TRUNCATE relchain.changes, relchain.changes_u, relchain.changes_nd; VACUUM stock;
CREATE OR REPLACE FUNCTION pg_temp.ticks() RETURNS bigint LANGUAGE sql AS \$f\$
  SELECT split_part(s, ' ', 14)::bigint + split_part(s, ' ', 15)::bigint FROM pg_read_file('/proc/self/stat') AS s \$f\$;
BEGIN;
SET LOCAL relchain.tx = '3';
SELECT pg_temp.ticks() AS t0 \gset
DO \$\$ BEGIN FOR i IN 1..$N LOOP UPDATE stock SET s_quantity = s_quantity + 1, s_ytd = s_ytd + 1, s_order_cnt = s_order_cnt + 1 WHERE s_w_id = 1 AND s_i_id = 1 + (i % 10000); END LOOP; END \$\$;
SELECT (pg_temp.ticks() - :t0) * 10000.0 / $N, (SELECT count(*) FROM relchain.changes);
COMMIT;
SQL
)
  echo "$round $spec $(echo $out | tr '\n' ' ')"
done; done
