-- hosted_media_url(p_url, p_variant, p_prefix): the URL a client is given for a source image
-- (src/services/hosted-media-sql.ts): prefix || sha256 || '/' || variant once the image is stored
-- in media_sources, the source URL until then (null stays null).
--
-- A function, not an inline sub-select, so a read's plan holds no scan of media_sources: that
-- table is empty or tiny on many databases, where a generic plan would scan it rather than probe
-- its key, and the read engine (rightly) keeps such a plan off its generic pool
-- (src/read-engine/generic-plans.ts). Inside, the lookup is one primary-key probe.
CREATE OR REPLACE FUNCTION hosted_media_url(p_url text, p_variant text, p_prefix text) RETURNS text
LANGUAGE plpgsql STABLE PARALLEL SAFE AS $$
DECLARE
  stored text;
BEGIN
  IF p_url IS NULL THEN RETURN NULL; END IF;
  SELECT hm.sha256 INTO stored FROM media_sources hm
   WHERE hm.url_sha256 = encode(sha256(convert_to(p_url, 'UTF8')), 'hex') AND hm.sha256 IS NOT NULL;
  RETURN CASE WHEN stored IS NULL THEN p_url ELSE p_prefix || stored || '/' || p_variant END;
END;
$$;
