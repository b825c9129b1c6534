-- The ad blocker's categories (issue 23): what a customer's switched-on ad blocker blocks. null is
-- the default, ads and trackers (what the switch meant before categories existed).
alter table user_features add column categories text[]
  check (categories is null or (cardinality(categories) between 1 and 5
    and categories <@ array['ads', 'trackers', 'malware', 'adult', 'gambling']::text[]));

-- A change of categories reaches the nodes as that user's delta, like the switch.
drop trigger user_features_vpn_changed on user_features;
create trigger user_features_vpn_changed after insert or update of enabled, categories on user_features
  for each row execute function user_feature_changed();
