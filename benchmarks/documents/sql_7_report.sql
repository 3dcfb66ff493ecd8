SELECT r.r_name AS region, s.s_name,
       CASE WHEN sum(ps.ps_availqty) >= 10000 THEN 'high'
            WHEN sum(ps.ps_availqty) BETWEEN 1000 AND 9999 THEN 'medium'
            ELSE 'low' END AS stock_level,
       CAST(avg(ps.ps_supplycost) AS DECIMAL(12, 2)) AS avg_cost,
       count(DISTINCT p.p_type) AS n_types
FROM supplier s
LEFT OUTER JOIN partsupp ps ON ps.ps_suppkey = s.s_suppkey
LEFT JOIN part p ON p.p_partkey = ps.ps_partkey AND p.p_name LIKE '%forest%'
RIGHT JOIN nation n ON n.n_nationkey = s.s_nationkey
FULL OUTER JOIN region r ON r.r_regionkey = n.n_regionkey
WHERE s.s_comment NOT LIKE '%Customer%Complaints%' AND s.s_acctbal IS NOT NULL
GROUP BY r.r_name, s.s_name
HAVING count(*) > 2 OR min(ps.ps_supplycost) < 5.5
ORDER BY region ASC, avg_cost DESC NULLS LAST
LIMIT 50 OFFSET 10;
