// p4f_tb_pkg: what every hw/ testbench shares.
//
// The scoreboard needs no queue between source and sink: both sides run an identical beat_gen
// (same seed, same stream number), so the sink recomputes the beat it should see next and
// compares every bit. A lost, duplicated, reordered or corrupted beat shows up as a mismatch.
`timescale 1ns / 1ps
package p4f_tb_pkg;

    // splitmix64's finaliser: every output bit depends on every input bit.
    function automatic longint unsigned mix64(input longint unsigned x);
        longint unsigned z;
        z = x + 64'h9E3779B97F4A7C15;
        z = (z ^ (z >> 30)) * 64'hBF58476D1CE4E5B9;
        z = (z ^ (z >> 27)) * 64'h94D049BB133111EB;
        return z ^ (z >> 31);
    endfunction

    // The run's seed: +seed=N on the command line, 1 if absent.
    function automatic longint unsigned run_seed();
        longint unsigned s;
        if (!$value$plusargs("seed=%d", s)) s = 1;
        return s;
    endfunction

    // A small deterministic PRNG (splitmix64), independent of the simulator's $urandom so a seed
    // means the same run on any simulator.
    class prng;
        longint unsigned state;
        function new(longint unsigned seed);
            state = mix64(seed);
        endfunction
        function longint unsigned next();
            state = state + 64'h9E3779B97F4A7C15;
            return mix64(state);
        endfunction
        // Uniform in [0, n).
        function int unsigned below(int unsigned n);
            return int'(next() % longint'(n));
        endfunction
    endclass

    // Random bit vectors of any width W, filled 64 bits of the generator at a time (bit i from
    // bit i % 64 of the (i / 64)-th draw).
    class random_bits #(int W = 1);
        static function logic [W-1:0] from(prng rng);
            logic [W-1:0] v;
            longint unsigned r = 0;
            for (int i = 0; i < W; i++) begin
                if (i % 64 == 0) r = rng.next();
                v[i] = r[i % 64];
            end
            return v;
        endfunction
    endclass

    // A table mask of one of the kinds a P4 table produces, or a random one: exact (all ones, a
    // BCAM), a prefix (LPM), dense, sparse, or everything / exact.
    class random_mask #(int W = 1);
        static function logic [W-1:0] from(prng rng);
            logic [W-1:0] m;
            int n = int'(rng.below(W + 1));
            case (rng.below(8))
                0, 1: m = '1;
                2, 3: m = ~(W'({W{1'b1}}) >> n);
                4: m = random_bits#(W)::from(rng);
                5: m = random_bits#(W)::from(rng) & random_bits#(W)::from(rng) & random_bits#(W)::from(rng);
                6: m = random_bits#(W)::from(rng) & random_bits#(W)::from(rng);
                default: m = rng.below(4) == 0 ? '0 : '1;
            endcase
            return m;
        endfunction
    endclass

    // The stream of beats of one source: random packet lengths (1..MAX_BEATS, one in four
    // packets a single beat, to stress packet boundaries), random data and tuser, a random
    // number of valid bytes on the last beat (tkeep contiguous from bit 0, as from a MAC).
    class beat_gen #(int DATA_W = 64, int USER_W = 1, int MAX_BEATS = 8);
        localparam int KEEP_W = (DATA_W + 7) / 8;
        prng rng;
        int unsigned beats_left;  // beats left in the current packet, 0 at a packet boundary
        longint unsigned beats;   // beats produced so far
        longint unsigned packets; // packets started so far

        function new(longint unsigned seed, int stream);
            rng = new(seed ^ ((longint'(stream) + 1) << 40));
            beats_left = 0;
            beats = 0;
            packets = 0;
        endfunction

        function void next(output logic [DATA_W-1:0] data, output logic [KEEP_W-1:0] keep,
                           output logic [USER_W-1:0] user, output logic last);
            longint unsigned w;
            int unsigned nbytes;
            if (beats_left == 0) begin
                beats_left = rng.below(4) == 0 ? 1 : 1 + rng.below(MAX_BEATS);
                packets++;
            end
            for (int i = 0; i < DATA_W; i++) begin
                if (i % 64 == 0) w = rng.next();
                data[i] = w[i % 64];
            end
            w = rng.next();
            for (int i = 0; i < USER_W; i++) user[i] = w[i % 64];
            last = beats_left == 1;
            nbytes = last ? 1 + rng.below(KEEP_W) : KEEP_W;
            for (int i = 0; i < KEEP_W; i++) keep[i] = i < int'(nbytes);
            beats_left--;
            beats++;
        endfunction
    endclass

endpackage
