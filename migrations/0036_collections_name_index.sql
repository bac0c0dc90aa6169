-- The console's search finds collections by the start of their name, whatever its case, through this index.
CREATE INDEX `collections_name_nocase_idx` ON `collections` (`name` COLLATE NOCASE);
