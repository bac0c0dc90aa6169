-- The refunds report reads the settled refunds made in a period through this index.
CREATE INDEX `order_refunds_status_created_idx` ON `order_refunds` (`status`,`created_date`);
