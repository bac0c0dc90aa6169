-- An outbox event is done once every processor of its type has recorded a result; the sweep re-sends the rest.
ALTER TABLE `outbox` ADD `resends` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `outbox` ADD `done_at` text;--> statement-breakpoint
-- Events flushed before this migration were handled under the old rule: count them done.
UPDATE `outbox` SET `done_at` = `flushed_at` WHERE `flushed_at` IS NOT NULL;--> statement-breakpoint
CREATE INDEX `outbox_waiting_idx` ON `outbox` (`event_time`) WHERE done_at IS NULL;
