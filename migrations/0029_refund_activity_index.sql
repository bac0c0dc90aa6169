CREATE INDEX `order_activities_type_idx` ON `order_activities` (`type`,`created_date`);
