// Code taken from PostgreSQL 15.20's own catalogs (queried once, by hand); do not edit
// these tables but to follow PostgreSQL.

package pgcatalog

// builtinTypes are pg_type's built-in rows: oid typname typlen typbyval typtype
// typcategory typispreferred typdelim typelem typarray typinput typoutput
// typreceive typsend typmodin typmodout typsubscript typalign typstorage
// typcollation, then format_type(oid, NULL) and format_type(oid, -1) with
// spaces as tildes.
const builtinTypes = `
16 bool 1 t b B t , 0 1000 1242 1243 2436 2437 0 0 0 c p 0 boolean boolean
17 bytea -1 f b U f , 0 1001 1244 31 2412 2413 0 0 0 i x 0 bytea bytea
18 char 1 t b Z f , 0 1002 1245 33 2434 2435 0 0 0 c p 0 "char" "char"
19 name 64 f b S f , 18 1003 34 35 2422 2423 0 0 6180 c p 950 name name
20 int8 8 t b N f , 0 1016 460 461 2408 2409 0 0 0 d p 0 bigint bigint
21 int2 2 t b N f , 0 1005 38 39 2404 2405 0 0 0 s p 0 smallint smallint
22 int2vector -1 f b A f , 21 1006 40 41 2410 2411 0 0 6179 i p 0 int2vector int2vector
23 int4 4 t b N f , 0 1007 42 43 2406 2407 0 0 0 i p 0 integer integer
24 regproc 4 t b N f , 0 1008 44 45 2444 2445 0 0 0 i p 0 regproc regproc
25 text -1 f b S t , 0 1009 46 47 2414 2415 0 0 0 i x 100 text text
26 oid 4 t b N t , 0 1028 1798 1799 2418 2419 0 0 0 i p 0 oid oid
27 tid 6 f b U f , 0 1010 48 49 2438 2439 0 0 0 s p 0 tid tid
28 xid 4 t b U f , 0 1011 50 51 2440 2441 0 0 0 i p 0 xid xid
29 cid 4 t b U f , 0 1012 52 53 2442 2443 0 0 0 i p 0 cid cid
30 oidvector -1 f b A f , 26 1013 54 55 2420 2421 0 0 6179 i p 0 oidvector oidvector
114 json -1 f b U f , 0 199 321 322 323 324 0 0 0 i x 0 json json
142 xml -1 f b U f , 0 143 2893 2894 2898 2899 0 0 0 i x 0 xml xml
143 _xml -1 f b A f , 142 0 750 751 2400 2401 0 0 6179 i x 0 xml[] xml[]
194 pg_node_tree -1 f b Z f , 0 0 195 196 197 198 0 0 0 i x 100 pg_node_tree pg_node_tree
199 _json -1 f b A f , 114 0 750 751 2400 2401 0 0 6179 i x 0 json[] json[]
269 table_am_handler 4 t p P f , 0 0 267 268 0 0 0 0 0 i p 0 table_am_handler table_am_handler
271 _xid8 -1 f b A f , 5069 0 750 751 2400 2401 0 0 6179 d x 0 xid8[] xid8[]
325 index_am_handler 4 t p P f , 0 0 326 327 0 0 0 0 0 i p 0 index_am_handler index_am_handler
600 point 16 f b G f , 701 1017 117 118 2428 2429 0 0 6180 d p 0 point point
601 lseg 32 f b G f , 600 1018 119 120 2480 2481 0 0 6180 d p 0 lseg lseg
602 path -1 f b G f , 0 1019 121 122 2482 2483 0 0 0 d x 0 path path
603 box 32 f b G f ; 600 1020 123 124 2484 2485 0 0 6180 d p 0 box box
604 polygon -1 f b G f , 0 1027 347 348 2486 2487 0 0 0 d x 0 polygon polygon
628 line 24 f b G f , 701 629 1490 1491 2488 2489 0 0 6180 d p 0 line line
629 _line -1 f b A f , 628 0 750 751 2400 2401 0 0 6179 d x 0 line[] line[]
650 cidr -1 f b I f , 0 651 1267 1427 2498 2499 0 0 0 i m 0 cidr cidr
651 _cidr -1 f b A f , 650 0 750 751 2400 2401 0 0 6179 i x 0 cidr[] cidr[]
700 float4 4 t b N f , 0 1021 200 201 2424 2425 0 0 0 i p 0 real real
701 float8 8 t b N t , 0 1022 214 215 2426 2427 0 0 0 d p 0 double~precision double~precision
705 unknown -2 f p X f , 0 0 109 110 2416 2417 0 0 0 c p 0 unknown unknown
718 circle 24 f b G f , 0 719 1450 1451 2490 2491 0 0 0 d p 0 circle circle
719 _circle -1 f b A f , 718 0 750 751 2400 2401 0 0 6179 d x 0 circle[] circle[]
774 macaddr8 8 f b U f , 0 775 4110 4111 3446 3447 0 0 0 i p 0 macaddr8 macaddr8
775 _macaddr8 -1 f b A f , 774 0 750 751 2400 2401 0 0 6179 i x 0 macaddr8[] macaddr8[]
790 money 8 t b N f , 0 791 886 887 2492 2493 0 0 0 d p 0 money money
791 _money -1 f b A f , 790 0 750 751 2400 2401 0 0 6179 d x 0 money[] money[]
829 macaddr 6 f b U f , 0 1040 436 437 2494 2495 0 0 0 i p 0 macaddr macaddr
869 inet -1 f b I t , 0 1041 910 911 2496 2497 0 0 0 i m 0 inet inet
1000 _bool -1 f b A f , 16 0 750 751 2400 2401 0 0 6179 i x 0 boolean[] boolean[]
1001 _bytea -1 f b A f , 17 0 750 751 2400 2401 0 0 6179 i x 0 bytea[] bytea[]
1002 _char -1 f b A f , 18 0 750 751 2400 2401 0 0 6179 i x 0 "char"[] "char"[]
1003 _name -1 f b A f , 19 0 750 751 2400 2401 0 0 6179 i x 950 name[] name[]
1005 _int2 -1 f b A f , 21 0 750 751 2400 2401 0 0 6179 i x 0 smallint[] smallint[]
1006 _int2vector -1 f b A f , 22 0 750 751 2400 2401 0 0 6179 i x 0 int2vector[] int2vector[]
1007 _int4 -1 f b A f , 23 0 750 751 2400 2401 0 0 6179 i x 0 integer[] integer[]
1008 _regproc -1 f b A f , 24 0 750 751 2400 2401 0 0 6179 i x 0 regproc[] regproc[]
1009 _text -1 f b A f , 25 0 750 751 2400 2401 0 0 6179 i x 100 text[] text[]
1010 _tid -1 f b A f , 27 0 750 751 2400 2401 0 0 6179 i x 0 tid[] tid[]
1011 _xid -1 f b A f , 28 0 750 751 2400 2401 0 0 6179 i x 0 xid[] xid[]
1012 _cid -1 f b A f , 29 0 750 751 2400 2401 0 0 6179 i x 0 cid[] cid[]
1013 _oidvector -1 f b A f , 30 0 750 751 2400 2401 0 0 6179 i x 0 oidvector[] oidvector[]
1014 _bpchar -1 f b A f , 1042 0 750 751 2400 2401 2913 2914 6179 i x 100 character[] bpchar[]
1015 _varchar -1 f b A f , 1043 0 750 751 2400 2401 2915 2916 6179 i x 100 character~varying[] character~varying[]
1016 _int8 -1 f b A f , 20 0 750 751 2400 2401 0 0 6179 d x 0 bigint[] bigint[]
1017 _point -1 f b A f , 600 0 750 751 2400 2401 0 0 6179 d x 0 point[] point[]
1018 _lseg -1 f b A f , 601 0 750 751 2400 2401 0 0 6179 d x 0 lseg[] lseg[]
1019 _path -1 f b A f , 602 0 750 751 2400 2401 0 0 6179 d x 0 path[] path[]
1020 _box -1 f b A f ; 603 0 750 751 2400 2401 0 0 6179 d x 0 box[] box[]
1021 _float4 -1 f b A f , 700 0 750 751 2400 2401 0 0 6179 i x 0 real[] real[]
1022 _float8 -1 f b A f , 701 0 750 751 2400 2401 0 0 6179 d x 0 double~precision[] double~precision[]
1027 _polygon -1 f b A f , 604 0 750 751 2400 2401 0 0 6179 d x 0 polygon[] polygon[]
1028 _oid -1 f b A f , 26 0 750 751 2400 2401 0 0 6179 i x 0 oid[] oid[]
1033 aclitem 12 f b U f , 0 1034 1031 1032 0 0 0 0 0 i p 0 aclitem aclitem
1034 _aclitem -1 f b A f , 1033 0 750 751 2400 2401 0 0 6179 i x 0 aclitem[] aclitem[]
1040 _macaddr -1 f b A f , 829 0 750 751 2400 2401 0 0 6179 i x 0 macaddr[] macaddr[]
1041 _inet -1 f b A f , 869 0 750 751 2400 2401 0 0 6179 i x 0 inet[] inet[]
1042 bpchar -1 f b S f , 0 1014 1044 1045 2430 2431 2913 2914 0 i x 100 character bpchar
1043 varchar -1 f b S f , 0 1015 1046 1047 2432 2433 2915 2916 0 i x 100 character~varying character~varying
1082 date 4 t b D f , 0 1182 1084 1085 2468 2469 0 0 0 i p 0 date date
1083 time 8 t b D f , 0 1183 1143 1144 2470 2471 2909 2910 0 d p 0 time~without~time~zone time~without~time~zone
1114 timestamp 8 t b D f , 0 1115 1312 1313 2474 2475 2905 2906 0 d p 0 timestamp~without~time~zone timestamp~without~time~zone
1115 _timestamp -1 f b A f , 1114 0 750 751 2400 2401 2905 2906 6179 d x 0 timestamp~without~time~zone[] timestamp~without~time~zone[]
1182 _date -1 f b A f , 1082 0 750 751 2400 2401 0 0 6179 i x 0 date[] date[]
1183 _time -1 f b A f , 1083 0 750 751 2400 2401 2909 2910 6179 d x 0 time~without~time~zone[] time~without~time~zone[]
1184 timestamptz 8 t b D t , 0 1185 1150 1151 2476 2477 2907 2908 0 d p 0 timestamp~with~time~zone timestamp~with~time~zone
1185 _timestamptz -1 f b A f , 1184 0 750 751 2400 2401 2907 2908 6179 d x 0 timestamp~with~time~zone[] timestamp~with~time~zone[]
1186 interval 16 f b T t , 0 1187 1160 1161 2478 2479 2903 2904 0 d p 0 interval interval
1187 _interval -1 f b A f , 1186 0 750 751 2400 2401 2903 2904 6179 d x 0 interval[] interval[]
1231 _numeric -1 f b A f , 1700 0 750 751 2400 2401 2917 2918 6179 i x 0 numeric[] numeric[]
1263 _cstring -1 f b A f , 2275 0 750 751 2400 2401 0 0 6179 i x 0 cstring[] cstring[]
1266 timetz 12 f b D f , 0 1270 1350 1351 2472 2473 2911 2912 0 d p 0 time~with~time~zone time~with~time~zone
1270 _timetz -1 f b A f , 1266 0 750 751 2400 2401 2911 2912 6179 d x 0 time~with~time~zone[] time~with~time~zone[]
1560 bit -1 f b V f , 0 1561 1564 1565 2456 2457 2919 2920 0 i x 0 bit "bit"
1561 _bit -1 f b A f , 1560 0 750 751 2400 2401 2919 2920 6179 i x 0 bit[] "bit"[]
1562 varbit -1 f b V t , 0 1563 1579 1580 2458 2459 2902 2921 0 i x 0 bit~varying bit~varying
1563 _varbit -1 f b A f , 1562 0 750 751 2400 2401 2902 2921 6179 i x 0 bit~varying[] bit~varying[]
1700 numeric -1 f b N f , 0 1231 1701 1702 2460 2461 2917 2918 0 i m 0 numeric numeric
1790 refcursor -1 f b U f , 0 2201 46 47 2414 2415 0 0 0 i x 0 refcursor refcursor
2201 _refcursor -1 f b A f , 1790 0 750 751 2400 2401 0 0 6179 i x 0 refcursor[] refcursor[]
2202 regprocedure 4 t b N f , 0 2207 2212 2213 2446 2447 0 0 0 i p 0 regprocedure regprocedure
2203 regoper 4 t b N f , 0 2208 2214 2215 2448 2449 0 0 0 i p 0 regoper regoper
2204 regoperator 4 t b N f , 0 2209 2216 2217 2450 2451 0 0 0 i p 0 regoperator regoperator
2205 regclass 4 t b N f , 0 2210 2218 2219 2452 2453 0 0 0 i p 0 regclass regclass
2206 regtype 4 t b N f , 0 2211 2220 2221 2454 2455 0 0 0 i p 0 regtype regtype
2207 _regprocedure -1 f b A f , 2202 0 750 751 2400 2401 0 0 6179 i x 0 regprocedure[] regprocedure[]
2208 _regoper -1 f b A f , 2203 0 750 751 2400 2401 0 0 6179 i x 0 regoper[] regoper[]
2209 _regoperator -1 f b A f , 2204 0 750 751 2400 2401 0 0 6179 i x 0 regoperator[] regoperator[]
2210 _regclass -1 f b A f , 2205 0 750 751 2400 2401 0 0 6179 i x 0 regclass[] regclass[]
2211 _regtype -1 f b A f , 2206 0 750 751 2400 2401 0 0 6179 i x 0 regtype[] regtype[]
2249 record -1 f p P f , 0 2287 2290 2291 2402 2403 0 0 0 d x 0 record record
2275 cstring -2 f p P f , 0 1263 2292 2293 2500 2501 0 0 0 c p 0 cstring cstring
2276 any 4 t p P f , 0 0 2294 2295 0 0 0 0 0 i p 0 "any" "any"
2277 anyarray -1 f p P f , 0 0 2296 2297 2502 2503 0 0 0 d x 0 anyarray anyarray
2278 void 4 t p P f , 0 0 2298 2299 3120 3121 0 0 0 i p 0 void void
2279 trigger 4 t p P f , 0 0 2300 2301 0 0 0 0 0 i p 0 trigger trigger
2280 language_handler 4 t p P f , 0 0 2302 2303 0 0 0 0 0 i p 0 language_handler language_handler
2281 internal 8 t p P f , 0 0 2304 2305 0 0 0 0 0 d p 0 internal internal
2283 anyelement 4 t p P f , 0 0 2312 2313 0 0 0 0 0 i p 0 anyelement anyelement
2287 _record -1 f p P f , 2249 0 750 751 2400 2401 0 0 6179 d x 0 record[] record[]
2776 anynonarray 4 t p P f , 0 0 2777 2778 0 0 0 0 0 i p 0 anynonarray anynonarray
2949 _txid_snapshot -1 f b A f , 2970 0 750 751 2400 2401 0 0 6179 d x 0 txid_snapshot[] txid_snapshot[]
2950 uuid 16 f b U f , 0 2951 2952 2953 2961 2962 0 0 0 c p 0 uuid uuid
2951 _uuid -1 f b A f , 2950 0 750 751 2400 2401 0 0 6179 i x 0 uuid[] uuid[]
2970 txid_snapshot -1 f b U f , 0 2949 2939 2940 2941 2942 0 0 0 d x 0 txid_snapshot txid_snapshot
3115 fdw_handler 4 t p P f , 0 0 3116 3117 0 0 0 0 0 i p 0 fdw_handler fdw_handler
3220 pg_lsn 8 t b U f , 0 3221 3229 3230 3238 3239 0 0 0 d p 0 pg_lsn pg_lsn
3221 _pg_lsn -1 f b A f , 3220 0 750 751 2400 2401 0 0 6179 d x 0 pg_lsn[] pg_lsn[]
3500 anyenum 4 t p P f , 0 0 3504 3505 0 0 0 0 0 i p 0 anyenum anyenum
3614 tsvector -1 f b U f , 0 3643 3610 3611 3639 3638 0 0 0 i x 0 tsvector tsvector
3615 tsquery -1 f b U f , 0 3645 3612 3613 3641 3640 0 0 0 i p 0 tsquery tsquery
3643 _tsvector -1 f b A f , 3614 0 750 751 2400 2401 0 0 6179 i x 0 tsvector[] tsvector[]
3645 _tsquery -1 f b A f , 3615 0 750 751 2400 2401 0 0 6179 i x 0 tsquery[] tsquery[]
3734 regconfig 4 t b N f , 0 3735 3736 3737 3738 3739 0 0 0 i p 0 regconfig regconfig
3735 _regconfig -1 f b A f , 3734 0 750 751 2400 2401 0 0 6179 i x 0 regconfig[] regconfig[]
3769 regdictionary 4 t b N f , 0 3770 3771 3772 3773 3774 0 0 0 i p 0 regdictionary regdictionary
3770 _regdictionary -1 f b A f , 3769 0 750 751 2400 2401 0 0 6179 i x 0 regdictionary[] regdictionary[]
3802 jsonb -1 f b U f , 0 3807 3806 3804 3805 3803 0 0 6098 i x 0 jsonb jsonb
3807 _jsonb -1 f b A f , 3802 0 750 751 2400 2401 0 0 6179 i x 0 jsonb[] jsonb[]
3831 anyrange -1 f p P f , 0 0 3832 3833 0 0 0 0 0 d x 0 anyrange anyrange
3838 event_trigger 4 t p P f , 0 0 3594 3595 0 0 0 0 0 i p 0 event_trigger event_trigger
3904 int4range -1 f r R f , 0 3905 3834 3835 3836 3837 0 0 0 i x 0 int4range int4range
3905 _int4range -1 f b A f , 3904 0 750 751 2400 2401 0 0 6179 i x 0 int4range[] int4range[]
3906 numrange -1 f r R f , 0 3907 3834 3835 3836 3837 0 0 0 i x 0 numrange numrange
3907 _numrange -1 f b A f , 3906 0 750 751 2400 2401 0 0 6179 i x 0 numrange[] numrange[]
3908 tsrange -1 f r R f , 0 3909 3834 3835 3836 3837 0 0 0 d x 0 tsrange tsrange
3909 _tsrange -1 f b A f , 3908 0 750 751 2400 2401 0 0 6179 d x 0 tsrange[] tsrange[]
3910 tstzrange -1 f r R f , 0 3911 3834 3835 3836 3837 0 0 0 d x 0 tstzrange tstzrange
3911 _tstzrange -1 f b A f , 3910 0 750 751 2400 2401 0 0 6179 d x 0 tstzrange[] tstzrange[]
3912 daterange -1 f r R f , 0 3913 3834 3835 3836 3837 0 0 0 i x 0 daterange daterange
3913 _daterange -1 f b A f , 3912 0 750 751 2400 2401 0 0 6179 i x 0 daterange[] daterange[]
3926 int8range -1 f r R f , 0 3927 3834 3835 3836 3837 0 0 0 d x 0 int8range int8range
3927 _int8range -1 f b A f , 3926 0 750 751 2400 2401 0 0 6179 d x 0 int8range[] int8range[]
4072 jsonpath -1 f b U f , 0 4073 4001 4003 4002 4004 0 0 0 i x 0 jsonpath jsonpath
4073 _jsonpath -1 f b A f , 4072 0 750 751 2400 2401 0 0 6179 i x 0 jsonpath[] jsonpath[]
4089 regnamespace 4 t b N f , 0 4090 4084 4085 4087 4088 0 0 0 i p 0 regnamespace regnamespace
4090 _regnamespace -1 f b A f , 4089 0 750 751 2400 2401 0 0 6179 i x 0 regnamespace[] regnamespace[]
4096 regrole 4 t b N f , 0 4097 4098 4092 4094 4095 0 0 0 i p 0 regrole regrole
4097 _regrole -1 f b A f , 4096 0 750 751 2400 2401 0 0 6179 i x 0 regrole[] regrole[]
4191 regcollation 4 t b N f , 0 4192 4193 4194 4196 4197 0 0 0 i p 0 regcollation regcollation
4192 _regcollation -1 f b A f , 4191 0 750 751 2400 2401 0 0 6179 i x 0 regcollation[] regcollation[]
5038 pg_snapshot -1 f b U f , 0 5039 5055 5056 5057 5058 0 0 0 d x 0 pg_snapshot pg_snapshot
5039 _pg_snapshot -1 f b A f , 5038 0 750 751 2400 2401 0 0 6179 d x 0 pg_snapshot[] pg_snapshot[]
5069 xid8 8 t b U f , 0 271 5070 5081 5082 5083 0 0 0 d p 0 xid8 xid8
5077 anycompatible 4 t p P f , 0 0 5086 5087 0 0 0 0 0 i p 0 anycompatible anycompatible
5078 anycompatiblearray -1 f p P f , 0 0 5088 5089 5090 5091 0 0 0 d x 0 anycompatiblearray anycompatiblearray
`

// builtinProcs are the pg_proc rows the built-in types and access methods
// name: oid proname prorettype proargtypes (comma-separated) proisstrict
// provolatile.
const builtinProcs = `
3 heap_tableam_handler 269 2281 t v
31 byteaout 2275 17 t i
33 charout 2275 18 t i
34 namein 19 2275 t i
35 nameout 2275 19 t i
38 int2in 21 2275 t i
39 int2out 2275 21 t i
40 int2vectorin 22 2275 t i
41 int2vectorout 2275 22 t i
42 int4in 23 2275 t i
43 int4out 2275 23 t i
44 regprocin 24 2275 t s
45 regprocout 2275 24 t s
46 textin 25 2275 t i
47 textout 2275 25 t i
48 tidin 27 2275 t i
49 tidout 2275 27 t i
50 xidin 28 2275 t i
51 xidout 2275 28 t i
52 cidin 29 2275 t i
53 cidout 2275 29 t i
54 oidvectorin 30 2275 t i
55 oidvectorout 2275 30 t i
109 unknownin 705 2275 t i
110 unknownout 2275 705 t i
117 point_in 600 2275 t i
118 point_out 2275 600 t i
119 lseg_in 601 2275 t i
120 lseg_out 2275 601 t i
121 path_in 602 2275 t i
122 path_out 2275 602 t i
123 box_in 603 2275 t i
124 box_out 2275 603 t i
195 pg_node_tree_in 194 2275 t i
196 pg_node_tree_out 2275 194 t i
197 pg_node_tree_recv 194 2281 t s
198 pg_node_tree_send 17 194 t s
200 float4in 700 2275 t i
201 float4out 2275 700 t i
214 float8in 701 2275 t i
215 float8out 2275 701 t i
267 table_am_handler_in 269 2275 f i
268 table_am_handler_out 2275 269 t i
321 json_in 114 2275 t i
322 json_out 2275 114 t i
323 json_recv 114 2281 t i
324 json_send 17 114 t i
326 index_am_handler_in 325 2275 f i
327 index_am_handler_out 2275 325 t i
330 bthandler 325 2281 t v
331 hashhandler 325 2281 t v
332 gisthandler 325 2281 t v
333 ginhandler 325 2281 t v
334 spghandler 325 2281 t v
335 brinhandler 325 2281 t v
347 poly_in 604 2275 t i
348 poly_out 2275 604 t i
436 macaddr_in 829 2275 t i
437 macaddr_out 2275 829 t i
460 int8in 20 2275 t i
461 int8out 2275 20 t i
750 array_in 2277 2275,26,23 t s
751 array_out 2275 2277 t s
886 cash_in 790 2275 t s
887 cash_out 2275 790 t s
910 inet_in 869 2275 t i
911 inet_out 2275 869 t i
1031 aclitemin 1033 2275 t s
1032 aclitemout 2275 1033 t s
1044 bpcharin 1042 2275,26,23 t i
1045 bpcharout 2275 1042 t i
1046 varcharin 1043 2275,26,23 t i
1047 varcharout 2275 1043 t i
1084 date_in 1082 2275 t s
1085 date_out 2275 1082 t s
1143 time_in 1083 2275,26,23 t s
1144 time_out 2275 1083 t i
1150 timestamptz_in 1184 2275,26,23 t s
1151 timestamptz_out 2275 1184 t s
1160 interval_in 1186 2275,26,23 t s
1161 interval_out 2275 1186 t s
1242 boolin 16 2275 t i
1243 boolout 2275 16 t i
1244 byteain 17 2275 t i
1245 charin 18 2275 t i
1267 cidr_in 650 2275 t i
1312 timestamp_in 1114 2275,26,23 t s
1313 timestamp_out 2275 1114 t s
1350 timetz_in 1266 2275,26,23 t s
1351 timetz_out 2275 1266 t i
1427 cidr_out 2275 650 t i
1450 circle_in 718 2275 t i
1451 circle_out 2275 718 t i
1490 line_in 628 2275 t i
1491 line_out 2275 628 t i
1564 bit_in 1560 2275,26,23 t i
1565 bit_out 2275 1560 t i
1579 varbit_in 1562 2275,26,23 t i
1580 varbit_out 2275 1562 t i
1701 numeric_in 1700 2275,26,23 t i
1702 numeric_out 2275 1700 t i
1798 oidin 26 2275 t i
1799 oidout 2275 26 t i
2212 regprocedurein 2202 2275 t s
2213 regprocedureout 2275 2202 t s
2214 regoperin 2203 2275 t s
2215 regoperout 2275 2203 t s
2216 regoperatorin 2204 2275 t s
2217 regoperatorout 2275 2204 t s
2218 regclassin 2205 2275 t s
2219 regclassout 2275 2205 t s
2220 regtypein 2206 2275 t s
2221 regtypeout 2275 2206 t s
2290 record_in 2249 2275,26,23 t s
2291 record_out 2275 2249 t s
2292 cstring_in 2275 2275 t i
2293 cstring_out 2275 2275 t i
2294 any_in 2276 2275 t i
2295 any_out 2275 2276 t i
2296 anyarray_in 2277 2275 t i
2297 anyarray_out 2275 2277 t s
2298 void_in 2278 2275 t i
2299 void_out 2275 2278 t i
2300 trigger_in 2279 2275 f i
2301 trigger_out 2275 2279 t i
2302 language_handler_in 2280 2275 f i
2303 language_handler_out 2275 2280 t i
2304 internal_in 2281 2275 f i
2305 internal_out 2275 2281 t i
2312 anyelement_in 2283 2275 t i
2313 anyelement_out 2275 2283 t i
2400 array_recv 2277 2281,26,23 t s
2401 array_send 17 2277 t s
2402 record_recv 2249 2281,26,23 t s
2403 record_send 17 2249 t s
2404 int2recv 21 2281 t i
2405 int2send 17 21 t i
2406 int4recv 23 2281 t i
2407 int4send 17 23 t i
2408 int8recv 20 2281 t i
2409 int8send 17 20 t i
2410 int2vectorrecv 22 2281 t i
2411 int2vectorsend 17 22 t i
2412 bytearecv 17 2281 t i
2413 byteasend 17 17 t i
2414 textrecv 25 2281 t s
2415 textsend 17 25 t s
2416 unknownrecv 705 2281 t i
2417 unknownsend 17 705 t i
2418 oidrecv 26 2281 t i
2419 oidsend 17 26 t i
2420 oidvectorrecv 30 2281 t i
2421 oidvectorsend 17 30 t i
2422 namerecv 19 2281 t s
2423 namesend 17 19 t s
2424 float4recv 700 2281 t i
2425 float4send 17 700 t i
2426 float8recv 701 2281 t i
2427 float8send 17 701 t i
2428 point_recv 600 2281 t i
2429 point_send 17 600 t i
2430 bpcharrecv 1042 2281,26,23 t s
2431 bpcharsend 17 1042 t s
2432 varcharrecv 1043 2281,26,23 t s
2433 varcharsend 17 1043 t s
2434 charrecv 18 2281 t i
2435 charsend 17 18 t i
2436 boolrecv 16 2281 t i
2437 boolsend 17 16 t i
2438 tidrecv 27 2281 t i
2439 tidsend 17 27 t i
2440 xidrecv 28 2281 t i
2441 xidsend 17 28 t i
2442 cidrecv 29 2281 t i
2443 cidsend 17 29 t i
2444 regprocrecv 24 2281 t i
2445 regprocsend 17 24 t i
2446 regprocedurerecv 2202 2281 t i
2447 regproceduresend 17 2202 t i
2448 regoperrecv 2203 2281 t i
2449 regopersend 17 2203 t i
2450 regoperatorrecv 2204 2281 t i
2451 regoperatorsend 17 2204 t i
2452 regclassrecv 2205 2281 t i
2453 regclasssend 17 2205 t i
2454 regtyperecv 2206 2281 t i
2455 regtypesend 17 2206 t i
2456 bit_recv 1560 2281,26,23 t i
2457 bit_send 17 1560 t i
2458 varbit_recv 1562 2281,26,23 t i
2459 varbit_send 17 1562 t i
2460 numeric_recv 1700 2281,26,23 t i
2461 numeric_send 17 1700 t i
2468 date_recv 1082 2281 t i
2469 date_send 17 1082 t i
2470 time_recv 1083 2281,26,23 t i
2471 time_send 17 1083 t i
2472 timetz_recv 1266 2281,26,23 t i
2473 timetz_send 17 1266 t i
2474 timestamp_recv 1114 2281,26,23 t i
2475 timestamp_send 17 1114 t i
2476 timestamptz_recv 1184 2281,26,23 t i
2477 timestamptz_send 17 1184 t i
2478 interval_recv 1186 2281,26,23 t i
2479 interval_send 17 1186 t i
2480 lseg_recv 601 2281 t i
2481 lseg_send 17 601 t i
2482 path_recv 602 2281 t i
2483 path_send 17 602 t i
2484 box_recv 603 2281 t i
2485 box_send 17 603 t i
2486 poly_recv 604 2281 t i
2487 poly_send 17 604 t i
2488 line_recv 628 2281 t i
2489 line_send 17 628 t i
2490 circle_recv 718 2281 t i
2491 circle_send 17 718 t i
2492 cash_recv 790 2281 t i
2493 cash_send 17 790 t i
2494 macaddr_recv 829 2281 t i
2495 macaddr_send 17 829 t i
2496 inet_recv 869 2281 t i
2497 inet_send 17 869 t i
2498 cidr_recv 650 2281 t i
2499 cidr_send 17 650 t i
2500 cstring_recv 2275 2281 t s
2501 cstring_send 17 2275 t s
2502 anyarray_recv 2277 2281 t s
2503 anyarray_send 17 2277 t s
2777 anynonarray_in 2776 2275 t i
2778 anynonarray_out 2275 2776 t i
2893 xml_in 142 2275 t s
2894 xml_out 2275 142 t i
2898 xml_recv 142 2281 t s
2899 xml_send 17 142 t s
2902 varbittypmodin 23 1263 t i
2903 intervaltypmodin 23 1263 t i
2904 intervaltypmodout 2275 23 t i
2905 timestamptypmodin 23 1263 t i
2906 timestamptypmodout 2275 23 t i
2907 timestamptztypmodin 23 1263 t i
2908 timestamptztypmodout 2275 23 t i
2909 timetypmodin 23 1263 t i
2910 timetypmodout 2275 23 t i
2911 timetztypmodin 23 1263 t i
2912 timetztypmodout 2275 23 t i
2913 bpchartypmodin 23 1263 t i
2914 bpchartypmodout 2275 23 t i
2915 varchartypmodin 23 1263 t i
2916 varchartypmodout 2275 23 t i
2917 numerictypmodin 23 1263 t i
2918 numerictypmodout 2275 23 t i
2919 bittypmodin 23 1263 t i
2920 bittypmodout 2275 23 t i
2921 varbittypmodout 2275 23 t i
2939 txid_snapshot_in 2970 2275 t i
2940 txid_snapshot_out 2275 2970 t i
2941 txid_snapshot_recv 2970 2281 t i
2942 txid_snapshot_send 17 2970 t i
2952 uuid_in 2950 2275 t i
2953 uuid_out 2275 2950 t i
2961 uuid_recv 2950 2281 t i
2962 uuid_send 17 2950 t i
3116 fdw_handler_in 3115 2275 f i
3117 fdw_handler_out 2275 3115 t i
3120 void_recv 2278 2281 t i
3121 void_send 17 2278 t i
3229 pg_lsn_in 3220 2275 t i
3230 pg_lsn_out 2275 3220 t i
3238 pg_lsn_recv 3220 2281 t i
3239 pg_lsn_send 17 3220 t i
3446 macaddr8_recv 774 2281 t i
3447 macaddr8_send 17 774 t i
3504 anyenum_in 3500 2275 t i
3505 anyenum_out 2275 3500 t s
3594 event_trigger_in 3838 2275 f i
3595 event_trigger_out 2275 3838 t i
3610 tsvectorin 3614 2275 t i
3611 tsvectorout 2275 3614 t i
3612 tsqueryin 3615 2275 t i
3613 tsqueryout 2275 3615 t i
3638 tsvectorsend 17 3614 t i
3639 tsvectorrecv 3614 2281 t i
3640 tsquerysend 17 3615 t i
3641 tsqueryrecv 3615 2281 t i
3736 regconfigin 3734 2275 t s
3737 regconfigout 2275 3734 t s
3738 regconfigrecv 3734 2281 t i
3739 regconfigsend 17 3734 t i
3771 regdictionaryin 3769 2275 t s
3772 regdictionaryout 2275 3769 t s
3773 regdictionaryrecv 3769 2281 t i
3774 regdictionarysend 17 3769 t i
3803 jsonb_send 17 3802 t i
3804 jsonb_out 2275 3802 t i
3805 jsonb_recv 3802 2281 t i
3806 jsonb_in 3802 2275 t i
3832 anyrange_in 3831 2275,26,23 t s
3833 anyrange_out 2275 3831 t s
3834 range_in 3831 2275,26,23 t s
3835 range_out 2275 3831 t s
3836 range_recv 3831 2281,26,23 t s
3837 range_send 17 3831 t s
4001 jsonpath_in 4072 2275 t i
4002 jsonpath_recv 4072 2281 t i
4003 jsonpath_out 2275 4072 t i
4004 jsonpath_send 17 4072 t i
4084 regnamespacein 4089 2275 t s
4085 regnamespaceout 2275 4089 t s
4087 regnamespacerecv 4089 2281 t i
4088 regnamespacesend 17 4089 t i
4092 regroleout 2275 4096 t s
4094 regrolerecv 4096 2281 t i
4095 regrolesend 17 4096 t i
4098 regrolein 4096 2275 t s
4110 macaddr8_in 774 2275 t i
4111 macaddr8_out 2275 774 t i
4193 regcollationin 4191 2275 t s
4194 regcollationout 2275 4191 t s
4196 regcollationrecv 4191 2281 t i
4197 regcollationsend 17 4191 t i
5055 pg_snapshot_in 5038 2275 t i
5056 pg_snapshot_out 2275 5038 t i
5057 pg_snapshot_recv 5038 2281 t i
5058 pg_snapshot_send 17 5038 t i
5070 xid8in 5069 2275 t i
5081 xid8out 2275 5069 t i
5082 xid8recv 5069 2281 t i
5083 xid8send 17 5069 t i
5086 anycompatible_in 5077 2275 t i
5087 anycompatible_out 2275 5077 t i
5088 anycompatiblearray_in 5078 2275 t i
5089 anycompatiblearray_out 2275 5078 t s
5090 anycompatiblearray_recv 5078 2281 t s
5091 anycompatiblearray_send 17 5078 t s
6098 jsonb_subscript_handler 2281 2281 t i
6179 array_subscript_handler 2281 2281 t i
6180 raw_array_subscript_handler 2281 2281 t i
`

// builtinOpclasses are btree's default operator classes: oid opcname
// opcintype opcfamily.
const builtinOpclasses = `
10003 bool_ops 16 424
10006 bytea_ops 17 428
10007 char_ops 18 429
10028 name_ops 19 1994
3124 int8_ops 20 1976
1979 int2_ops 21 1976
1978 int4_ops 23 1976
3126 text_ops 25 1994
1981 oid_ops 26 1989
10050 tid_ops 27 2789
10012 float4_ops 700 1970
3123 float8_ops 701 1970
10026 macaddr8_ops 774 3371
10047 money_ops 790 2099
10024 macaddr_ops 829 1984
10015 inet_ops 869 1974
10004 bpchar_ops 1042 426
3122 date_ops 1082 434
10038 time_ops 1083 1996
3128 timestamp_ops 1114 434
3127 timestamptz_ops 1184 434
10022 interval_ops 1186 1982
10041 timetz_ops 1266 2000
10002 bit_ops 1560 423
10043 varbit_ops 1562 2002
3125 numeric_ops 1700 1988
10065 uuid_ops 2950 2968
10067 pg_lsn_ops 3220 3253
10071 tsvector_ops 3614 3626
10074 tsquery_ops 3615 3683
10088 jsonb_ops 3802 4033
10053 xid8_ops 5069 5067
`

// catalogRelations are the emulated relations' pg_class rows: oid schema
// relname relkind.
const catalogRelations = `
1213 pg_catalog pg_tablespace r
1247 pg_catalog pg_type r
1249 pg_catalog pg_attribute r
1255 pg_catalog pg_proc r
1259 pg_catalog pg_class r
1261 pg_catalog pg_auth_members r
1262 pg_catalog pg_database r
2224 pg_catalog pg_sequence r
2396 pg_catalog pg_shdescription r
2601 pg_catalog pg_am r
2604 pg_catalog pg_attrdef r
2606 pg_catalog pg_constraint r
2608 pg_catalog pg_depend r
2609 pg_catalog pg_description r
2610 pg_catalog pg_index r
2611 pg_catalog pg_inherits r
2612 pg_catalog pg_language r
2615 pg_catalog pg_namespace r
2616 pg_catalog pg_opclass r
2618 pg_catalog pg_rewrite r
2620 pg_catalog pg_trigger r
3079 pg_catalog pg_extension r
3118 pg_catalog pg_foreign_table r
3256 pg_catalog pg_policy r
3350 pg_catalog pg_partitioned_table r
3381 pg_catalog pg_statistic_ext r
3456 pg_catalog pg_collation r
3466 pg_catalog pg_event_trigger r
3501 pg_catalog pg_enum r
6104 pg_catalog pg_publication r
6106 pg_catalog pg_publication_rel r
12000 pg_catalog pg_roles v
12014 pg_catalog pg_user v
12028 pg_catalog pg_views v
12033 pg_catalog pg_tables v
12038 pg_catalog pg_matviews v
12043 pg_catalog pg_indexes v
12048 pg_catalog pg_sequences v
12073 pg_catalog pg_locks v
12104 pg_catalog pg_settings v
12126 pg_catalog pg_timezone_names v
12161 pg_catalog pg_stat_user_tables v
12222 pg_catalog pg_stat_activity v
13250 information_schema character_sets v
13260 information_schema check_constraints v
13295 information_schema columns v
13300 information_schema constraint_column_usage v
13305 information_schema constraint_table_usage v
13325 information_schema enabled_roles v
13329 information_schema key_column_usage v
13339 information_schema referential_constraints v
13377 information_schema routines v
13382 information_schema schemata v
13386 information_schema sequences v
13411 information_schema table_constraints v
13416 information_schema table_privileges v
13425 information_schema tables v
13440 information_schema triggers v
13483 information_schema views v
`
