-- js_number_text(x): a double as JavaScript writes it (Number#toString, what JSON.stringify and
-- graphql-js give the resolvers), so the read engine's JSON equals the resolvers' byte for byte.
-- Both print the fewest digits that read back as the same double, but
--   * the layout differs: PostgreSQL switches to an exponent below 1e-4 and from 1e15 ('1e-05',
--     '1e+15'), JavaScript below 1e-6 and from 1e21 ('0.00001', '1000000000000000', '1e-7',
--     '1e+21'); PostgreSQL keeps the sign of zero;
--   * where the shorter decimal lies exactly on the boundary between two doubles, JavaScript takes
--     it (round half to even reads it back as this double) and PostgreSQL does not: it prints
--     8.032001059750001e+17 where JavaScript prints 803200105975000000. So a text of 16 or 17
--     digits is shortened to the fewest that read back as x.
-- NaN and the infinities are JSON null.
CREATE OR REPLACE FUNCTION js_number_text(x float8) RETURNS text
LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $$
DECLARE
  t text;
  neg boolean;
  digits text;
  e int;
  ip text;
  fp text;
  c numeric;
  v numeric;
  k int;
  shortened boolean := false;
BEGIN
  IF x = 0 THEN RETURN '0'; END IF;
  IF x = 'NaN'::float8 OR x = 'Infinity'::float8 OR x = '-Infinity'::float8 THEN RETURN NULL; END IF;
  t := x::text;
  -- the common case: a plain text of fewer than 16 digits is JavaScript's already
  IF position('e' IN t) = 0 AND length(replace(ltrim(t, '-0.'), '.', '')) < 16 THEN RETURN t; END IF;
  neg := left(t, 1) = '-';
  -- PostgreSQL's digits as an exact decimal (a float8::numeric cast would keep 15 digits)
  v := (CASE WHEN neg THEN substr(t, 2) ELSE t END)::numeric;
  LOOP
    -- the significant digits and the decimal exponent of the first one, from plain decimal text
    t := v::text;
    ip := split_part(t, '.', 1);
    fp := split_part(t, '.', 2);
    IF ip <> '0' THEN
      e := length(ip) - 1;
      digits := rtrim(ip || fp, '0');
    ELSE
      e := -(length(fp) - length(ltrim(fp, '0')) + 1);
      digits := rtrim(ltrim(fp, '0'), '0');
    END IF;
    EXIT WHEN shortened OR length(digits) < 16;
    shortened := true;
    FOR k IN 1 .. length(digits) - 1 LOOP
      c := round(v, k - 1 - e);
      -- (rounding up near the largest double leaves the doubles: not a candidate)
      IF c <= 1.7976931348623157e308::numeric AND c::float8 = abs(x) THEN
        v := c;
        EXIT;
      END IF;
    END LOOP;
  END LOOP;
  IF e >= 21 OR e < -6 THEN
    t := left(digits, 1) || CASE WHEN length(digits) > 1 THEN '.' || substr(digits, 2) ELSE '' END
         || 'e' || CASE WHEN e > 0 THEN '+' ELSE '-' END || abs(e)::text;
  ELSIF e >= 0 THEN
    t := CASE WHEN length(digits) <= e + 1 THEN digits || repeat('0', e + 1 - length(digits))
              ELSE left(digits, e + 1) || '.' || substr(digits, e + 2) END;
  ELSE
    t := '0.' || repeat('0', -e - 1) || digits;
  END IF;
  RETURN CASE WHEN neg THEN '-' || t ELSE t END;
END;
$$;
