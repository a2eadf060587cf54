-- setup: base
SELECT sym, CAST(sum(qty) AS BIGINT), avg(price), count(*) FROM t GROUP BY sym
