-- Menus link pages, collections and free URLs: a menu stored before lists its pages as its links.
UPDATE `cms_items` SET `data` = json_set(`data`, '$.links', (SELECT json_group_array(json_object('type', 'PAGE', 'page', p.value)) FROM (SELECT value FROM json_each(`cms_items`.`data`, '$.pages') ORDER BY key) p)) WHERE `collection_id` = 'Menus' AND json_extract(`data`, '$.links') IS NULL;
