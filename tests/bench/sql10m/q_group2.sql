-- setup: base
SELECT sym, d, CAST(sum(qty) AS BIGINT), avg(price), count(*) FROM t GROUP BY sym, d
