ALTER TABLE `emails` ADD `attempts` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `emails` ADD `next_attempt_at` text;--> statement-breakpoint
CREATE INDEX `emails_retry_idx` ON `emails` (`next_attempt_at`);