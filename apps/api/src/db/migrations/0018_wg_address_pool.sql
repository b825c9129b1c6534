-- WireGuard address allocation without reading every device (issue 22: at 300,000 devices the old
-- "first gap" query read the whole table, ~230 ms, and customers adding at the same moment picked
-- the same index and scanned again). Free indexes below the high-water mark are kept in a list;
-- a new device takes the smallest free one (skip locked: parallel adds take different ones) or
-- else the high-water mark. Triggers keep both true whatever writes wg_devices (the API, a revoke,
-- an account deletion's cascade, a bench seeding rows with SQL).
create table wg_free_addresses (addr_index integer primary key check (addr_index > 0));
create table wg_address_high (
  id integer primary key check (id = 1),
  -- The smallest index above every index ever used.
  next_index integer not null check (next_index > 0)
);
insert into wg_address_high (id, next_index) values (1, coalesce((select max(addr_index) from wg_devices), 0) + 1);
insert into wg_free_addresses (addr_index)
  select g from generate_series(1, coalesce((select max(addr_index) from wg_devices), 0)) g
  where not exists (select 1 from wg_devices d where d.addr_index = g);

create function wg_address_bookkeeping() returns trigger language plpgsql as $$
declare mark integer;
begin
  if tg_op in ('INSERT', 'UPDATE') then
    delete from wg_free_addresses where addr_index = new.addr_index;
    -- Only matches (and locks) the row when a writer used an index at or above the mark itself:
    -- the indexes it skipped become free.
    select next_index into mark from wg_address_high where id = 1 and next_index <= new.addr_index for update;
    if found then
      insert into wg_free_addresses (addr_index) select g from generate_series(mark, new.addr_index - 1) g on conflict do nothing;
      update wg_address_high set next_index = new.addr_index + 1 where id = 1;
    end if;
  end if;
  if tg_op = 'DELETE' or (tg_op = 'UPDATE' and old.addr_index <> new.addr_index) then
    insert into wg_free_addresses (addr_index) values (old.addr_index) on conflict do nothing;
  end if;
  return null;
end $$;
create trigger wg_devices_address_bookkeeping after insert or delete or update of addr_index on wg_devices
  for each row execute function wg_address_bookkeeping();
