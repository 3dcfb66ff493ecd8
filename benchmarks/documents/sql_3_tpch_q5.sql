SELECT n.n_name, sum(l.l_extendedprice * (1 - l.l_discount)) AS revenue
FROM customer AS c
JOIN orders AS o ON c.c_custkey = o.o_custkey
JOIN lineitem AS l ON l.l_orderkey = o.o_orderkey
JOIN supplier AS s ON l.l_suppkey = s.s_suppkey AND c.c_nationkey = s.s_nationkey
JOIN nation AS n ON s.s_nationkey = n.n_nationkey
JOIN region AS r USING (r_regionkey)
WHERE r.r_name = 'ASIA' AND o.o_orderdate >= date '1994-01-01' AND o.o_orderdate < date '1995-01-01'
GROUP BY n.n_name
ORDER BY revenue DESC;
