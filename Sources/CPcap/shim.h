#include <pcap/pcap.h>
