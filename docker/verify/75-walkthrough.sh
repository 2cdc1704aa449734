# Stage 75 (not with --probes-only): a curl walkthrough (SPEC §4, §6) and a key made with `keys create`.
# shellcheck shell=bash disable=SC2034,SC2154  # sourced by docker/verify-image.sh, sharing its variables
[ "$probes_only" -eq 0 ] || return 0
step "curl walkthrough (SPEC §4, §6)"
app="com.example.maps"
expect_status 401 GET /v1/services "" ""
expect_status 200 GET /v1/services
expect_status "200 201" PUT "/v1/apps/$app" \
    '{"name": "Maps", "purposeStrings": {"NSCameraUsageDescription": "Scan tickets with the camera."}}'
expect_status 202 POST "/v1/users/u42/apps/$app/authorizations/camera/request" '{"level": "full"}'
prompt_id="$(json_field 'j.get("id") or j["prompt"]["id"]')"
expect_status 200 GET "/v1/users/u42/prompts?state=pending"
grep -q "$prompt_id" "$tmp/body" || fail "the pending prompts do not list $prompt_id"
expect_status 200 POST "/v1/prompts/$prompt_id/decision" '{"choice": "allow"}'
expect_status 200 GET "/v1/users/u42/apps/$app/authorizations/camera"
[ "$(json_field 'j["status"], j["reason"]')" = "('authorized', 'userConsent')" ] \
    || fail "camera is not authorized by userConsent: $(cat "$tmp/body")"
expect_status 200 GET "/v1/audit?user=u42"
grep -q "$prompt_id" "$tmp/body" || fail "the audit log does not mention $prompt_id"
buildah run --isolation chroot "$server_ctr" -- permission-server keys create --role admin --name verify \
    >"$tmp/key.txt" || fail "permission-server keys create"
# The secret is printed once: as JSON {"secret": ...} or as the last word of the output.
new_key="$(python3 -c '
import json, sys
text = open(sys.argv[1]).read()
try:
    print(json.loads(text)["secret"])
except (ValueError, KeyError, TypeError):
    print(text.split()[-1] if text.split() else "")
' "$tmp/key.txt")"
[ -n "$new_key" ] || fail "keys create printed no secret"
expect_status 200 GET /v1/services "" "$new_key"
done_step
