SELECT 'supplier' AS kind, s_name AS name, s_acctbal AS balance FROM supplier WHERE s_acctbal > 9000
UNION ALL
SELECT 'customer', c_name, c_acctbal FROM customer c CROSS JOIN nation n
WHERE c.c_nationkey = n.n_nationkey AND n.n_name IN ('FRANCE', 'GERMANY') AND c.c_acctbal > (SELECT max(s_acctbal) - 500 FROM supplier)
UNION
SELECT 'order', o_clerk, o_totalprice FROM orders WHERE o_orderstatus = 'F' AND o_comment LIKE '%it''s%'
ORDER BY balance DESC
LIMIT 20;
