// p4f_tb_host_mem.svh: host memory for the host-DMA testbenches, a sparse byte array (unwritten
// bytes read as 0) with little-endian accessors; `included inside the testbench module.
logic [7:0] hmem [longint unsigned];
function automatic logic [7:0] rd8(input longint unsigned a);
    return hmem.exists(a) ? hmem[a] : 8'h00;
endfunction
function automatic void wr8(input longint unsigned a, input logic [7:0] v);
    hmem[a] = v;
endfunction
function automatic longint unsigned rd_le(input longint unsigned a, input int n);
    longint unsigned v = 0;
    for (int i = n - 1; i >= 0; i--) v = (v << 8) | longint'(rd8(a + longint'(i)));
    return v;
endfunction
function automatic void wr_le(input longint unsigned a, input int n, input longint unsigned v);
    for (int i = 0; i < n; i++) wr8(a + longint'(i), 8'(v >> (8 * i)));
endfunction
