-- Trades (N rows) and quotes (2N rows) over 5,000 symbols, generated from the row index
-- (same formulas as setup_join.dos).
CREATE TABLE trades AS
SELECT 'S' || (range * 2654435761 % 5000) AS sym,
       TIMESTAMP '2024-01-01 09:30:00' + to_milliseconds(range * 2) AS time,
       10.0 + (range * 7919 % 10000) / 100.0 AS price,
       CAST(range * 31 % 100 + 1 AS INTEGER) AS qty
FROM range({N});
CREATE TABLE quotes AS
SELECT 'S' || (range * 2654435761 % 5000) AS sym,
       TIMESTAMP '2024-01-01 09:30:00' + to_milliseconds(range) AS time,
       10.0 + (range * 7907 % 10000) / 100.0 AS bid,
       10.0 + (range * 7907 % 10000) / 100.0 + (range % 5 + 1) / 100.0 AS ask
FROM range({N*2});
