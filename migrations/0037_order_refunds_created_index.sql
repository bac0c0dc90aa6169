-- The refunds report reads the settled refunds made in a period through this index. It is partial, so the sweeps'
-- reads of STARTED and PENDING refunds keep their own partial indexes.
CREATE INDEX `order_refunds_succeeded_idx` ON `order_refunds` (`created_date`) WHERE status = 'SUCCEEDED';
