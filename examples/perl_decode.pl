#!/usr/bin/perl
# Perl's UTF-8 decoders, for `abnfc crosscheck` and `abnfc learn`: hex-lines on standard input,
# 1 or 0 per line on standard output.  With the argument "strict", Encode's decode("UTF-8") with
# FB_CROAK (the strict, RFC 3629 encoding); with "lax", utf8::decode (Perl's own, lax "utf8").
#
#     abnfc learn grammars/utf8.abnf --cmd 'perl examples/perl_decode.pl strict'
#     abnfc learn grammars/utf8.abnf --cmd 'perl examples/perl_decode.pl lax'
use strict;
use warnings;
use Encode ();

my $mode = shift // "strict";
$| = 0;
while (my $line = <STDIN>) {
    $line =~ s/\s+//g;
    my $bytes = pack("H*", $line);
    my $ok;
    if ($mode eq "lax") {
        my $copy = $bytes;
        $ok = utf8::decode($copy) ? 1 : 0;
    } else {
        my $copy = $bytes;
        $ok = eval { Encode::decode("UTF-8", $copy, Encode::FB_CROAK); 1 } ? 1 : 0;
    }
    print "$ok\n";
}
