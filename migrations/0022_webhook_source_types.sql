ALTER TABLE `webhook_sources` ADD `event_types` text DEFAULT '["inventory.updated"]' NOT NULL;--> statement-breakpoint
ALTER TABLE `webhook_sources` ADD `configured_by` text;