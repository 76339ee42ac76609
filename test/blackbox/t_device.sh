#!/usr/bin/env bash
# issue32: the device authorization grant (RFC 8628, docs/device.md).
# 1. device_flow on clients: off by default, read and written by create and
#    update, strict input; setting or changing it needs all twelve
#    permissions (docs/signin.md §"Who may change where tokens go").
. "$(dirname "$0")/lib.sh"
fake_clock
EDGEAUTH_WRAPPER=$FAKED start_server
AS_ADMIN="Bearer $TOKEN"
DENIED="403 insufficient_permission"
load_resources
row() { db "select * from clients where id = '$1'"; }

########## 1. device_flow on clients ##########
req POST "$P/clients" '{"name":"tv"}'
check_status "issue32.1: create without device_flow" 201
check_json "issue32.1: device_flow is off by default" .device_flow false
TV=$(jq -r .id <<<"$BODY")
req POST "$P/clients" '{"name":"kiosk","device_flow":true}'
check_status "issue32.1: create with device_flow" 201
check_json "issue32.1: written" .device_flow true
KIOSK=$(jq -r .id <<<"$BODY"); KIOSK_RECORD=$(jq -c 'del(.client_secret)' <<<"$BODY")
req GET "$P/clients/$KIOSK"
check "issue32.1: get answers what create wrote" "$(jq -c . <<<"$BODY")" "$KIOSK_RECORD"
req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true}'
check_json "issue32.1: an update without it keeps it" .device_flow true
req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":false}'
check_json "issue32.1: an update turns it off" .device_flow false
req PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":true}'
check_json "issue32.1: and on" .device_flow true
# hostile values: invalid_params naming the field, nothing written
for v in null '"true"' 1 0 '[]' '{}' '"yes"'; do
	req POST "$P/clients" "{\"name\":\"x\",\"device_flow\":$v}"
	check_err "issue32.1: device_flow $v refused on create" 400 invalid_params
	check_json "issue32.1: the error names device_flow ($v)" '.error_description|test("device_flow")' true
	req PUT "$P/clients/$KIOSK" "{\"name\":\"kiosk\",\"is_active\":true,\"device_flow\":$v}"
	check_err "issue32.1: device_flow $v refused on update" 400 invalid_params
done
check "issue32.1: no refused create was written" "$(db "select count(*) from clients where name = 'x'")" 0
check "issue32.1: a refused update changed nothing" "$(jq -r .device_flow <<<"$(AUTH="$AS_ADMIN" req GET "$P/clients/$KIOSK"; echo "$BODY")")" true

# who may: a client manager without all twelve may not set or change it
new_client "client manager" clients:create clients:read clients:update users:read
AS_CM="Bearer $(client_token "$CID" "$CSECRET")"
expect "$AS_CM" 201 "issue32.1: a lesser token creates with device_flow false" POST "$P/clients" '{"name":"m1","device_flow":false}'
M1=$(jq -r .id <<<"$BODY")
N=$(db "select count(*) from clients")
expect "$AS_CM" "$DENIED" "issue32.1: a lesser token may not create with device_flow" POST "$P/clients" '{"name":"m2","device_flow":true}'
check "issue32.1: the refused create wrote nothing" "$(db "select count(*) from clients")" "$N"
expect "$AS_CM" 200 "issue32.1: a lesser token sends the same value back" PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":true}'
BEFORE=$(row "$KIOSK")
expect "$AS_CM" "$DENIED" "issue32.1: a lesser token may not turn it off" PUT "$P/clients/$KIOSK" '{"name":"kiosk","is_active":true,"device_flow":false}'
expect "$AS_CM" "$DENIED" "issue32.1: nor on" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"device_flow":true}'
check "issue32.1: refused updates changed nothing" "$(row "$KIOSK")" "$BEFORE"
expect "$AS_CM" "400 invalid_params" "issue32.1: invalid_params before 403" PUT "$P/clients/$M1" '{"name":"","is_active":true,"device_flow":true}'
expect "$AS_CM" "404 client_not_found" "issue32.1: client_not_found before 403" PUT "$P/clients/nope" '{"name":"m1","is_active":true,"device_flow":true}'
expect "$AS_ADMIN" 200 "issue32.1: the admin turns it on" PUT "$P/clients/$M1" '{"name":"m1","is_active":true,"device_flow":true}'

finish
