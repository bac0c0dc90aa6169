ALTER TABLE `webhook_events` ADD `reason` text;--> statement-breakpoint
ALTER TABLE `webhook_sources` ADD `enabled` integer DEFAULT true NOT NULL;