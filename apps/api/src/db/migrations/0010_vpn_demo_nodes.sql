-- Demo nodes (issue 15): the placeholder node each seeded location used to get (<slug>-1 at
-- *.nodes.warren.example) is a demo node now, seeded only outside production and never offered to
-- customers in production. Placeholders already in a database (never given a token, never
-- reported) are marked; a node that reports is a real node from then on.
alter table vpn_nodes add column demo boolean not null default false;
update vpn_nodes set demo = true where token_hash is null and last_seen_at is null and endpoint_host like '%.nodes.warren.example';
