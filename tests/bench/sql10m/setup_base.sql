-- 10M-row trade-like table, generated from the row index (same formulas as setup_base.dos).
CREATE TABLE t AS
SELECT range AS i,
       'S' || (range * 2654435761 % 5000) AS sym,
       TIMESTAMP '2024-01-01 09:30:00' + to_milliseconds(range * 10) AS ts,
       DATE '2024-01-01' + CAST(range * 20 // {N} AS INTEGER) AS d,
       10.0 + (range * 7919 % 10000) / 100.0 AS price,
       CAST(range * 31 % 100 + 1 AS INTEGER) AS qty
FROM range({N});
